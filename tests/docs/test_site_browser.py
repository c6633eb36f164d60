"""The built site in a real headless browser: Debian's chromium driven by selenium.

Opens the home page, a theory page, the API page of ``attention_law``, the gallery and the
notebook from a local http.server and checks, as a reader would see them: no console errors,
every image loaded, the math typeset by the site's own KaTeX (no raw ``$$`` or ``\\(``), the
page's internal links answering, and the search box finding ``compound_free_poisson``.
Screenshots of the home page and of the gallery go to build/screenshots/ (gitignored; not
part of the site).

Skipped, with the reason, where selenium, chromium or chromedriver is missing (.ci/run
installs chromium and chromium-driver from apt).
"""
from __future__ import annotations

import pathlib
import shutil
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

SCREENSHOTS = ROOT / "build" / "screenshots"

PAGES = {
    "home": "",
    "theory": "theory/",
    "api-attention_law": "api/attention/#freeattn.attention.attention_law",
    "gallery": "gallery/",
    "notebook": "example/",
}


def _find(*names):
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    webdriver = pytest.importorskip("selenium.webdriver",
                                    reason="selenium is not installed (the docs extra)")
    chromium = _find("chromium", "chromium-browser", "google-chrome")
    driver_path = _find("chromedriver")
    if chromium is None or driver_path is None:
        pytest.skip("no headless browser: install Debian's chromium and chromium-driver "
                    "(apt-get install -y chromium chromium-driver; .ci/run does)")
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--window-size=1280,1000",
                 f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"):
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # the driver's path is given, so selenium never tries to download one
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=opts)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def _wait(predicate, timeout=20.0, step=0.1):
    end = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() > end:
            return value
        time.sleep(step)


def _open(driver, url):
    driver.get(url)
    _wait(lambda: driver.execute_script("return document.readyState") == "complete")
    # KaTeX runs on material's document$ after the load: wait until no math is left raw
    _wait(lambda: driver.execute_script(
        "return document.querySelectorAll('.arithmatex').length == "
        "document.querySelectorAll('.arithmatex .katex').length"))
    _wait(lambda: driver.execute_script(
        "return Array.from(document.images).every(i => i.complete)"))


def _errors(driver):
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


_RAW_TEXT = """
const art = document.querySelector('article').cloneNode(true);
art.querySelectorAll('pre, code, script, .katex').forEach(e => e.remove());
return art.textContent;
"""


@pytest.mark.parametrize("key", list(PAGES))
def test_page_renders(browser, served_site, key):
    url = served_site + PAGES[key]
    browser.get_log("browser")  # drop what earlier pages logged
    _open(browser, url)
    assert browser.title and "404" not in browser.title, browser.title
    errors = _errors(browser)
    assert not errors, f"console errors on {url}: {errors}"

    images = browser.execute_script(
        "return Array.from(document.images).map(i => [i.currentSrc || i.src, i.complete, "
        "i.naturalWidth])")
    broken = [src for src, done, width in images if not (done and width > 0)]
    assert not broken, f"images that did not load on {url}: {broken}"

    n_math = browser.execute_script("return document.querySelectorAll('.arithmatex').length")
    n_katex = browser.execute_script(
        "return document.querySelectorAll('.arithmatex .katex').length")
    n_error = browser.execute_script("return document.querySelectorAll('.katex-error').length")
    assert n_math == n_katex and n_error == 0, (n_math, n_katex, n_error)
    text = browser.execute_script(_RAW_TEXT)
    for raw in ("$$", "\\(", "\\[", "\\frac", "\\theta"):
        assert raw not in text, f"raw math {raw!r} left on {url}"

    if key in ("home", "theory"):
        assert n_katex > 0, f"no typeset math on {url}"
        fonts = browser.execute_script(
            "return performance.getEntriesByType('resource').map(r => r.name)"
            ".filter(n => n.includes('/assets/katex/fonts/'))")
        assert fonts, "KaTeX fonts were not loaded from the site itself"
    if key == "api-attention_law":
        heading = browser.find_element("id", "freeattn.attention.attention_law")
        assert "attention_law" in heading.text
        text = browser.find_element("tag name", "article").text
        assert "Hayase & Karakida 2026, eqs. (C.8)" in text and "Examples" in text
    if key == "notebook":  # executed at build time; its LaTeX outputs typeset by KaTeX
        assert browser.execute_script(
            "return document.querySelectorAll('.jp-RenderedLatex .katex').length") >= 2
        assert "discriminant edges:" in browser.find_element("tag name", "article").text
    if key == "gallery":
        figures = [src for src, _, _ in images if "/img/" in src or "/gallery/" in src]
        assert len(figures) >= 14, figures

    # internal links of the page: every target answers, every #fragment exists there
    links = browser.execute_script(
        "return Array.from(document.querySelectorAll('article a[href], nav a[href]'))"
        ".map(a => a.href)")
    seen = {}
    bad = []
    for link in links:
        parts = urllib.parse.urlsplit(link)
        if not link.startswith(served_site):
            continue
        base = urllib.parse.urlunsplit(parts._replace(fragment=""))
        if base not in seen:
            try:
                with urllib.request.urlopen(base, timeout=10) as resp:
                    seen[base] = resp.read().decode("utf-8", "replace")
            except urllib.error.URLError as exc:
                seen[base] = None
                bad.append(f"{link}: {exc}")
        if parts.fragment and seen[base] is not None:
            frag = urllib.parse.unquote(parts.fragment)
            if f'id="{frag}"' not in seen[base]:
                bad.append(f"{link}: no element with id {frag!r}")
    assert not bad, "\n".join(bad[:20])
    assert len(seen) >= 5

    if key in ("home", "gallery"):
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        height = browser.execute_script("return document.documentElement.scrollHeight")
        browser.set_window_size(1280, min(max(height, 1000), 12000) if key == "gallery"
                                else 1000)
        browser.execute_script("window.scrollTo(0, 0)")
        time.sleep(0.3)
        assert browser.save_screenshot(str(SCREENSHOTS / f"{key}.png"))
        browser.set_window_size(1280, 1000)


def test_search_finds_compound_free_poisson(browser, served_site):
    _open(browser, served_site)
    box = browser.find_element("css selector", "input.md-search__input")
    if not box.is_displayed():  # narrow window: the header's search button opens the box
        browser.find_element("css selector", "label.md-header__button[for='__search']").click()
        _wait(lambda: box.is_displayed(), timeout=5)
    box.click()
    box.send_keys("compound_free_poisson")
    found = _wait(lambda: [r.text for r in browser.find_elements(
        "css selector", ".md-search-result__item") if "compound_free_poisson" in r.text],
        timeout=30)
    assert found, "the search box found nothing for compound_free_poisson"
    assert not _errors(browser)
