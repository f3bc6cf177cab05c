"""Unpacking a baseline archive as hostile input: all or nothing, inside the destination."""

from __future__ import annotations

import io
import re
import stat
import struct
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from goldgate.github.archive import extract_zip_safely
from goldgate.github.errors import ArchiveRefused

CAP = 1_000_000


def build(entries: list[tuple[zipfile.ZipInfo | str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for info, data in entries:
            archive.writestr(info, data)
    return buffer.getvalue()


def unix_entry(name: str, mode: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.create_system = 3
    info.external_attr = mode << 16
    return info


def write(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "artifact.zip"
    path.write_bytes(data)
    return path


def leftovers(tmp_path: Path) -> list[str]:
    return sorted(p.name for p in tmp_path.iterdir() if p.name != "artifact.zip")


def test_a_plain_archive_is_unpacked(tmp_path: Path) -> None:
    data = build(
        [
            ("report.json", b'{"format": "goldgate.report/1"}'),
            ("nested/", b""),
            ("nested/deeper/cases.json", b"[]"),
            ("./dot/x.txt", b"x"),
        ]
    )
    dest = tmp_path / "baseline"

    files = extract_zip_safely(write(tmp_path, data), dest, max_bytes=CAP, max_files=10)

    assert [f.relative_to(dest).as_posix() for f in files] == [
        "report.json",
        "nested/deeper/cases.json",
        "dot/x.txt",
    ]
    assert (dest / "report.json").read_bytes() == b'{"format": "goldgate.report/1"}'
    assert stat.S_IMODE((dest / "report.json").stat().st_mode) == 0o600
    assert leftovers(tmp_path) == ["baseline"]


HOSTILE: list[tuple[str, Callable[[], bytes], str]] = [
    ("parent", lambda: build([("../evil.json", b"x")]), "climbs out with '..'"),
    ("deep parent", lambda: build([("a/b/../../../evil", b"x")]), "climbs out with '..'"),
    ("absolute", lambda: build([("/etc/evil", b"x")]), "has an absolute path"),
    ("drive", lambda: build([("C:/evil", b"x")]), "has a Windows or malformed path"),
    ("backslash", lambda: build([("a\\..\\..\\evil", b"x")]), "Windows or malformed"),
    (
        "symlink",
        lambda: build([(unix_entry("link", stat.S_IFLNK | 0o777), b"/etc/passwd")]),
        "'link' is a symbolic link",
    ),
    (
        "character device",
        lambda: build([(unix_entry("tty", stat.S_IFCHR | 0o666), b"")]),
        "'tty' is not a regular file or folder",
    ),
    (
        "fifo",
        lambda: build([(unix_entry("pipe", stat.S_IFIFO | 0o644), b"")]),
        "'pipe' is not a regular file or folder",
    ),
    (
        "duplicate",
        lambda: build([("a/report.json", b"1"), ("a/./report.json", b"2")]),
        "holds the entry 'a/./report.json' twice",
    ),
    (
        "file then folder",
        lambda: build([("a", b"1"), ("a/b", b"2")]),
        "'a/b' cannot be written",
    ),
    ("not a zip", lambda: b"this is not a zip archive", "not a readable zip archive"),
    ("empty name", lambda: build([("./", b"")]), "has no name"),
]


@pytest.mark.parametrize(("data", "message"), [h[1:] for h in HOSTILE], ids=[h[0] for h in HOSTILE])
def test_hostile_archives_are_refused_whole(
    tmp_path: Path, data: Callable[[], bytes], message: str
) -> None:
    good_first = data()
    dest = tmp_path / "baseline"

    with pytest.raises(ArchiveRefused, match=message) as refused:
        extract_zip_safely(write(tmp_path, good_first), dest, max_bytes=CAP, max_files=10)

    assert "\n" not in str(refused.value)
    assert leftovers(tmp_path) == []  # nothing written, no staging folder left
    assert not (tmp_path.parent / "evil.json").exists()


def test_a_bad_entry_after_good_ones_leaves_nothing(tmp_path: Path) -> None:
    data = build([("report.json", b"{}"), ("z/../../evil", b"x")])

    with pytest.raises(ArchiveRefused, match=re.escape("'z/../../evil'")):
        extract_zip_safely(write(tmp_path, data), tmp_path / "out", max_bytes=CAP, max_files=10)

    assert leftovers(tmp_path) == []


def test_too_many_entries(tmp_path: Path) -> None:
    data = build([(f"f{i}", b"") for i in range(11)])

    with pytest.raises(ArchiveRefused, match="11 entries, over the cap of 10"):
        extract_zip_safely(write(tmp_path, data), tmp_path / "out", max_bytes=CAP, max_files=10)


def test_declared_sizes_over_the_cap(tmp_path: Path) -> None:
    data = build([("a", b"0" * 600), ("b", b"0" * 600)])

    with pytest.raises(ArchiveRefused, match="unpacks to 1,200 bytes, over the 1,000-byte cap"):
        extract_zip_safely(write(tmp_path, data), tmp_path / "out", max_bytes=1000, max_files=10)


def _patch(data: bytes, name: bytes, fmt: str, local: int, central: int, value: int) -> bytes:
    """Rewrite one field of ``name``'s local header (at offset ``local``) and central
    directory entry (at ``central``), as a hand-made hostile archive would have it."""
    patched = bytearray(data)
    for signature, offset, name_at, length_at in (
        (b"PK\x03\x04", local, 30, 26),
        (b"PK\x01\x02", central, 46, 28),
    ):
        start = patched.find(signature)
        while start >= 0:
            name_length = struct.unpack_from("<H", patched, start + length_at)[0]
            if bytes(patched[start + name_at : start + name_at + name_length]) == name:
                struct.pack_into(fmt, patched, start + offset, value)
            start = patched.find(signature, start + 4)
    return bytes(patched)


def _lie_about_size(data: bytes, name: bytes, size: int) -> bytes:
    """Claim ``size`` as the uncompressed size of ``name``."""
    return _patch(data, name, "<I", 22, 24, size)


def test_a_header_that_understates_the_size_is_refused(tmp_path: Path) -> None:
    # 5 MB of zeros that claim to be 100 bytes: never more than the claim is written (the
    # entry is cut there and its checksum fails), whatever the headers added up to.
    bomb = _lie_about_size(build([("report.json", b"0" * 5_000_000)]), b"report.json", 100)

    with pytest.raises(ArchiveRefused, match=re.escape("'report.json' cannot be read")):
        extract_zip_safely(write(tmp_path, bomb), tmp_path / "out", max_bytes=CAP, max_files=10)

    assert leftovers(tmp_path) == []


def test_an_encrypted_entry_is_refused(tmp_path: Path) -> None:
    data = _patch(build([("secret.json", b"{}")]), b"secret.json", "<H", 6, 8, 0x1)

    with pytest.raises(ArchiveRefused, match=re.escape("'secret.json' is encrypted")):
        extract_zip_safely(write(tmp_path, data), tmp_path / "out", max_bytes=CAP, max_files=10)


def test_an_existing_destination_is_not_overwritten(tmp_path: Path) -> None:
    dest = tmp_path / "baseline"
    dest.mkdir()
    (dest / "keep").write_text("mine")

    with pytest.raises(ArchiveRefused, match="already exists"):
        extract_zip_safely(
            write(tmp_path, build([("keep", b"theirs")])), dest, max_bytes=CAP, max_files=10
        )

    assert (dest / "keep").read_text() == "mine"


def test_only_a_regular_file_is_read(tmp_path: Path) -> None:
    with pytest.raises(ArchiveRefused, match="is not a regular file"):
        extract_zip_safely(tmp_path, tmp_path / "out", max_bytes=CAP, max_files=10)


def _end_record_says(data: bytes, entries: int) -> bytes:
    """``data`` with its end-of-central-directory record claiming ``entries`` entries."""
    at = data.rfind(b"PK\x05\x06")
    fields = list(struct.unpack_from("<4s4H2LH", data, at))
    fields[3] = fields[4] = entries
    return data[:at] + struct.pack("<4s4H2LH", *fields) + data[at + 22 :]


def test_entries_are_counted_from_the_end_record_before_the_directory_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Millions of tiny entries would cost zipfile gigabytes before they could be counted:
    the end record's count is checked first, and zipfile is never asked."""
    data = _end_record_says(build([("report.json", b"{}")]), 60_000)

    def never(*_: object, **__: object) -> None:
        raise AssertionError("zipfile read an archive whose end record was over the cap")

    monkeypatch.setattr(zipfile, "ZipFile", never)

    with pytest.raises(ArchiveRefused, match="60,000 entries, over the cap of 1,000"):
        extract_zip_safely(write(tmp_path, data), tmp_path / "out", max_bytes=CAP, max_files=1000)

    assert leftovers(tmp_path) == []


def test_an_end_record_that_understates_the_entries_still_bounds_the_directory(
    tmp_path: Path,
) -> None:
    data = _end_record_says(build([(f"f{i:05d}", b"") for i in range(5_000)]), 1)

    with pytest.raises(ArchiveRefused, match=r"central directory is .* more than 10 entries need"):
        extract_zip_safely(write(tmp_path, data), tmp_path / "out", max_bytes=CAP, max_files=10)


def test_a_zip64_archive_is_counted_from_its_zip64_end_record(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", allowZip64=True) as archive:
        for index in range(70_000):  # over 65,535: only the zip64 record holds the count
            archive.writestr(f"{index}", b"")

    path = write(tmp_path, buffer.getvalue())

    # the 16-bit count says 65,535, under this cap: only the zip64 record tells 70,000
    with pytest.raises(ArchiveRefused, match="70,000 entries, over the cap of 66,000"):
        extract_zip_safely(path, tmp_path / "out", max_bytes=CAP, max_files=66_000)
