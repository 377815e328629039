"""The benchmark: each modeling pattern against the e-book's normalized SQL schema, side by side.

``dataset`` generates one deterministic data set; ``redisside`` loads it into a
scratch Redis through the apps' own store bulk paths and answers each question
through the apps' store functions; ``sqlside`` loads the same records into
SQLite (Python's ``sqlite3``) with the indexes a DBA would add and answers the
same questions in SQL; ``runner`` checks both answers agree, then times them;
``pages`` times whole pages through Django's test client; ``report`` prints it.
"""
