"""The key browser: the raw Redis structures behind every screen, read-only.

the ``store`` package (its ``key``, ``server`` and ``nodes`` modules) is its only code that talks to Redis;
``display`` turns bytes into safe text and links; ``behind`` carries a page's trace to the browser.
"""
