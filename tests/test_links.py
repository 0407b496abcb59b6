"""The links between the README and the docs lead to files of the checkout."""

import re

import pytest

from conftest import REPOSITORY


PAGES = [REPOSITORY / "README.md", *sorted((REPOSITORY / "docs").glob("*.md"))]


def local_links(text):
    """The targets of the Markdown links and images in ``text`` that name a file of the
    checkout (no scheme, no bare anchor), anchors removed."""
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    return [target.split("#")[0] for target in targets
            if not re.match(r"[a-z]+:|#", target)]


def test_links_are_read():
    assert local_links("[a](docs/x.md#y) ![c](c.png) [b](https://x.org/y) [d](#e)") == [
        "docs/x.md", "c.png"]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_local_links_lead_somewhere(page):
    missing = [target for target in local_links(page.read_text())
               if not (page.parent / target).exists()]
    assert missing == []
