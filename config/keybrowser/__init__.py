"""The key browser: the raw Redis structures behind every screen, read-only.

``store`` is its only module that talks to Redis; ``display`` turns bytes into
safe text and links; ``behind`` carries a page's command trace to the browser.
"""
