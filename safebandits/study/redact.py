"""One redaction of credentials in storage URLs, used by every output (CLI, dashboard, errors, logs).

Database drivers accept a password in several places of a URL or connection string, and not always
percent-encoded:

- ``postgresql://user:PASSWORD@host/db`` and ``postgresql://:PASSWORD@host/db`` (password only);
- an unencoded ``/``, ``@``, ``?``, ``:`` or ``#`` inside the password (``user:p/w@d@host``): SQLAlchemy
  ends the password at the first ``@``, libpq at the last ``@`` before the path; both readings are
  covered by taking everything between the first ``:`` of the user part and the **last** ``@`` of the
  URL as the secret (over-redacting an ``@`` in the query string is harmless; under-redacting is not);
- query parameters and libpq / ODBC key-value strings: ``?password=``, ``&sslpassword=``, ``pwd=``,
  ``passwd=``, ``secret=``, ``token=``, quoted values (``password='a b'``) included.

:func:`redact_url` returns the URL with each secret replaced by ``***``; :func:`redact_text` removes
the secrets of given URLs (and any URL-shaped credentials) from free text such as a driver's error
message, including their percent-decoded forms and the pieces a driver that splits the password at
an ``@`` or ``/`` may print on its own.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

__all__ = ["MASK", "redact_text", "redact_url", "url_secrets"]

MASK = "***"

_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*://)")
_KEYS = r"(?:password|passwd|pass|pwd|sslpassword|sslkey_?password|secret|token|api_?key|access_?token)"
_KEYVAL = re.compile(
    rf"((?:^|(?<=[?&;,\s])){_KEYS}\s*=\s*)('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|[^&;,\s#]*)", re.IGNORECASE
)
_MIN_PIECE = 3  # pieces of a secret (split at @ / : ? #) this long are removed from free text too


def _split(url: str) -> tuple[str, str, str, str] | None:
    """``(prefix, scheme, userinfo, rest)`` of the first ``scheme://userinfo@`` in ``url``, or None."""
    m = _SCHEME.search(url)
    if m is None:
        return None
    after = url[m.end() :]
    at = after.rfind("@")
    if at < 0:
        return None
    return url[: m.start()], m.group(1), after[:at], after[at + 1 :]


def redact_url(url: object) -> str:
    """``url`` with every password (user-info, query parameter, key-value) replaced by ``***``.

    Examples
    --------
    >>> redact_url("postgresql://ann:p/w@d@db.example/studies?sslpassword=x")
    'postgresql://ann:***@db.example/studies?sslpassword=***'
    >>> redact_url("postgresql://db.example/s?user=ann&password=pw")
    'postgresql://db.example/s?user=ann&password=***'
    """
    if not isinstance(url, str):
        return repr(url)
    out = _KEYVAL.sub(lambda m: m.group(1) + MASK, url)  # first: a query password may hold an '@'
    parts = _split(out)
    if parts is not None:
        prefix, scheme, userinfo, rest = parts
        if ":" in userinfo:
            user = userinfo.split(":", 1)[0]
            out = f"{prefix}{scheme}{user}:{MASK}@{rest}"
    return out


def url_secrets(url: object) -> list[str]:
    """Every secret of ``url`` as it may appear in a message: whole, percent-decoded, and the pieces a
    driver reading the URL differently may show on their own (longest first)."""
    if not isinstance(url, str):
        return []
    found: list[str] = []
    parts = _split(_KEYVAL.sub(lambda m: m.group(1) + MASK, url))
    if parts is not None and ":" in parts[2]:
        secret = parts[2].split(":", 1)[1]
        found.append(secret)
        found += [secret[:i] for i, c in enumerate(secret) if c == "@"]  # (ended at an earlier @)
    for m in _KEYVAL.finditer(url):
        value = m.group(2)
        found.append(value)
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            found.append(value[1:-1])
    more = []
    for secret in found:
        more.append(unquote(secret))
        more += [p for p in re.split(r"[@/:?#]", secret) if len(p) >= _MIN_PIECE]
    out = {s for s in found + more if s and s != MASK}
    return sorted(out, key=len, reverse=True)


_URL_CREDENTIALS = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*://[^\s:/@'\"]*:)[^\s'\"]*@")


def redact_text(text: object, *urls: object) -> str:
    """``text`` without the secrets of ``urls`` and without any ``scheme://user:password@`` or
    ``password=...`` it holds (for driver messages, tracebacks and log lines)."""
    out = str(text)
    for url in urls:
        if isinstance(url, str) and url:
            out = out.replace(url, redact_url(url))
            for secret in url_secrets(url):
                out = out.replace(secret, MASK)
    out = _URL_CREDENTIALS.sub(lambda m: m.group(1) + MASK + "@", out)
    return _KEYVAL.sub(lambda m: m.group(1) + MASK, out)
