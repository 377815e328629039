"""The key browser: the raw Redis structures behind every screen, read-only.

``store``, ``keystore``, ``serverstore`` and ``nodes`` are its only modules that talk to Redis;
``display`` turns bytes into safe text and links; ``behind`` carries a page's trace to the browser.
"""
