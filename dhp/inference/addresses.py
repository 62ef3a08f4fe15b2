"""Which network addresses a public service may contact: the one rule of the leaderboard's URL check
(:func:`dhp.leaderboard.submissions.validation.check_endpoint_url`) and of the HTTP client's connections.

A Space checks a submitted endpoint's host when it is submitted and when the worker runs it, but
the scorer resolves the name again when it connects, and a name's answer may change in between
(DNS rebinding). With ``DHP_PUBLIC_ENDPOINTS_ONLY=1`` in its environment (the worker sets it in
Space mode) the scorer's HTTP client checks every address a name resolves to when it connects
(:mod:`dhp.inference.http`), and contacts none of a name that resolves to one that is not public.
"""

from __future__ import annotations

import ipaddress
import os

__all__ = ["PUBLIC_ONLY_ENV", "address_problem", "public_only"]

#: Set to 1, the scorer's HTTP client contacts public addresses only (the worker sets it in Space mode).
PUBLIC_ONLY_ENV = "DHP_PUBLIC_ENDPOINTS_ONLY"

#: Metadata addresses that are not covered by the private / link-local ranges.
_METADATA_IPS = frozenset({ipaddress.ip_address("100.100.100.200"), ipaddress.ip_address("fd00:ec2::254")})


def address_problem(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    """Why an address may not be contacted from a public service, or None if it is public."""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return address_problem(ip.ipv4_mapped)
    if ip in _METADATA_IPS:
        return "a cloud metadata address"
    if ip.is_loopback:
        return "a loopback address"
    if ip.is_link_local:
        return "a link-local address (this includes cloud metadata services)"
    if ip.is_multicast or ip.is_reserved or ip.is_unspecified:
        return "a reserved address"
    if ip.is_private:
        return "a private address"
    if not ip.is_global:
        return "a non-public address"
    return None


def public_only() -> bool:
    """Whether this process may contact public addresses only (``DHP_PUBLIC_ENDPOINTS_ONLY=1``)."""
    return os.environ.get(PUBLIC_ONLY_ENV, "").strip() == "1"
