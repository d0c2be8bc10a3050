"""The proxy's certificate authority: one per installation, made on first use.

A CA key shared by every user lets anyone who has it read everyone's traffic,
so the key is generated here, in the user's config directory, readable by the
user alone, and never leaves this machine. Even so, a stolen key must not be
able to impersonate any site to every program that trusts the CA: the
certificate carries X.509 name constraints that permit only the intercepted
domains (Cursor's `cursor.sh` by default; no IP address at all) and it is
valid for a year. `cursor-byok proxy --new-ca` replaces it.

mitmproxy's certificate store reads the files from its `confdir` and signs
each intercepted host's leaf certificate with this key; we make the CA
ourselves (with `cryptography`, which mitmproxy depends on) because mitmproxy
makes an unconstrained one valid for ten years.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from cursor_byok.config.files import replace_whole
from cursor_byok.config.settings import APP_NAME
from cursor_byok.ide.proxy.routes import CURSOR_DOMAINS, covers

BASENAME = "mitmproxy"
"""The file prefix mitmproxy's TLS addon reads from its confdir."""
CA_NAME = "cursor-byok local proxy CA"
KEY_SIZE = 2048
VALIDITY = datetime.timedelta(days=365)
"""How long a CA is valid; a new one is a `--new-ca` away."""
CLOCK_SKEW = datetime.timedelta(days=1)
"""The CA is valid from a day before it is made, for clocks slightly behind."""
OTHER_FILES = ("ca.p12", "ca-cert.p12", "ca-cert.cer")
"""What mitmproxy writes beside a CA it makes itself: removed on rotation, so
no copy of an old CA stays behind."""
NEW_CA_HINT = "run 'cursor-byok proxy --new-ca' and trust the new certificate (README)"


class CAError(Exception):
    """The CA cannot be created, is not private to the user, or cannot be used."""


@dataclass(frozen=True, slots=True)
class CAFiles:
    directory: Path

    @property
    def certificate(self) -> Path:
        """The public certificate: what Cursor (or the system) must trust."""
        return self.directory / f"{BASENAME}-ca-cert.pem"

    @property
    def key(self) -> Path:
        """Private key and certificate together: never share this file."""
        return self.directory / f"{BASENAME}-ca.pem"


@dataclass(frozen=True, slots=True)
class CAInfo:
    """What a CA certificate allows, read from the certificate itself."""

    not_after: datetime.datetime
    domains: tuple[str, ...] | None
    """The DNS names it may sign for (subdomains included); None: anything."""

    def describe(self) -> str:
        until = self.not_after.strftime("%Y-%m-%d")
        where = ", ".join(self.domains) if self.domains is not None else "any site"
        return f"valid until {until} for {where}"

    def problem(self, domains: Sequence[str], now: datetime.datetime | None = None) -> str | None:
        """Why this CA cannot serve a proxy intercepting `domains`, or None."""
        now = now or datetime.datetime.now(datetime.UTC)
        if self.not_after <= now:
            return f"expired on {self.not_after:%Y-%m-%d}"
        if self.domains is None:
            return "can sign for any site (made by an earlier version, without name constraints)"
        missing = [d for d in domains if not any(covers(p, d) for p in self.domains)]
        if missing:
            return f"signs only for {', '.join(self.domains)}, not for {', '.join(missing)}"
        return None


def default_ca_dir() -> Path:
    return Path(platformdirs.user_config_dir(APP_NAME)) / "proxy-ca"


def ensure_ca(
    directory: Path | None = None,
    domains: Sequence[str] = CURSOR_DOMAINS,
    *,
    renew: bool = False,
    now: datetime.datetime | None = None,
) -> tuple[CAFiles, bool]:
    """The CA files, created for `domains` if absent (or replaced, with
    `renew`); True when created now. An existing CA is kept as it is:
    `ca_info(...).problem(domains)` says whether it serves."""
    files = CAFiles(directory or default_ca_dir())
    created = renew or not files.key.exists()
    try:
        files.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        if os.name == "posix":
            files.directory.chmod(0o700)
        if created:
            _write(files, *_make(domains, now or datetime.datetime.now(datetime.UTC)))
    except OSError as error:
        raise CAError(f"cannot create the proxy CA in {files.directory}: {error}") from error
    _check_private(files.key)
    return files, created


def ca_info(certificate: Path) -> CAInfo:
    """The validity and the permitted domains of the CA at `certificate`."""
    from cryptography import x509  # noqa: PLC0415 (with mitmproxy: the proxy's path only)

    try:
        cert = x509.load_pem_x509_certificate(certificate.read_bytes())
    except (OSError, ValueError) as error:
        raise CAError(f"cannot read the proxy CA {certificate}: {error}") from error
    try:
        constraints = cert.extensions.get_extension_for_class(x509.NameConstraints).value
    except x509.ExtensionNotFound:
        return CAInfo(cert.not_valid_after_utc, None)
    permitted = constraints.permitted_subtrees or []
    names = tuple(str(n.value) for n in permitted if isinstance(n, x509.DNSName))
    return CAInfo(cert.not_valid_after_utc, names)


def _make(domains: Sequence[str], now: datetime.datetime) -> tuple[bytes, bytes]:
    """A new key and a CA certificate for `domains`: (key PEM, certificate PEM)."""
    from cryptography import x509  # noqa: PLC0415
    from cryptography.hazmat.primitives import hashes, serialization  # noqa: PLC0415
    from cryptography.hazmat.primitives.asymmetric import rsa  # noqa: PLC0415
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID  # noqa: PLC0415

    key = rsa.generate_private_key(public_exponent=65537, key_size=KEY_SIZE)
    name = x509.Name(
        [
            x509.NameAttribute(NameOID.COMMON_NAME, CA_NAME),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, APP_NAME),
        ]
    )
    any_address = [ipaddress.ip_network("0.0.0.0/0"), ipaddress.ip_network("::/0")]
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - CLOCK_SKEW)
        .not_valid_after(now + VALIDITY)
        # It signs the leaves mitmproxy makes, never another CA.
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.NameConstraints(
                permitted_subtrees=[x509.DNSName(domain) for domain in domains],
                excluded_subtrees=[x509.IPAddress(network) for network in any_address],
            ),
            critical=True,
        )
        .add_extension(
            x509.KeyUsage(
                digital_signature=False,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    )
    return key_pem, certificate.public_bytes(serialization.Encoding.PEM)


def _write(files: CAFiles, key_pem: bytes, certificate_pem: bytes) -> None:
    """Both files replaced whole: each written beside itself (the key's copy
    created readable by the user alone), then renamed over the old one."""
    for leftover in OTHER_FILES:
        (files.directory / f"{BASENAME}-{leftover}").unlink(missing_ok=True)
    for path, data, mode in (
        (files.key, key_pem + certificate_pem, 0o600),
        (files.certificate, certificate_pem, 0o644),
    ):
        replace_whole(path, data, mode)


def _check_private(key: Path) -> None:
    if os.name != "posix":
        return  # the user profile's ACLs protect it there
    mode = stat.S_IMODE(key.stat().st_mode)
    if mode & 0o077:
        raise CAError(
            f"the proxy CA key {key} is readable by others (mode {mode:o}); "
            f"run 'chmod 600 {key}' or delete the directory to make a new CA"
        )
