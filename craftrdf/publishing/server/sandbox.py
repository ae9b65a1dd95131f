"""Take the network away from a query worker: a seccomp filter (Linux) behind the query guard.

The guard (:mod:`craftrdf.publishing.server.guard`) refuses ``SERVICE`` and ``LOAD`` before the engine
parses a request. Should a request slip past it anyway, a worker started with the network
denied cannot act on it: :func:`deny_network` installs a seccomp-BPF filter in the calling
process (the worker, right after it starts) under which ``socket()`` for any family other
than ``AF_UNIX`` fails with ``EACCES``, ``connect()`` fails with ``EACCES`` (a worker's only
sockets are the Unix pipe to its parent, made before the filter), and ``io_uring_setup``
fails with ``ENOSYS`` (io_uring would perform socket operations outside the filter's view).
DNS look-ups fail the same way, so an engine cannot even resolve a name. The filter is
inherited by threads and children and cannot be removed (``PR_SET_NO_NEW_PRIVS``).

The filter is a 14-instruction classic BPF program loaded with ``prctl`` through ctypes,
for x86-64 and AArch64; system calls of another ABI (x32, 32-bit) on those are refused
when they are numbered as x32, otherwise let through: the threat is a query making the
engine fetch a URL, not code running in the worker. On other systems (macOS, Windows,
other Linux architectures) :func:`deny_network` returns False and logs why; docs/server.md
says what to use there instead.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import logging
import os
import platform
import socket
import sys

logger = logging.getLogger(__name__)

_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
_LD_ABS_W = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE_K = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_RET_K = 0x06  # BPF_RET | BPF_K
_X32_BIT = 0x40000000
_IO_URING_SETUP = 425  # the same on both architectures (the unified syscall table)

#: machine → (AUDIT_ARCH value, socket, connect)
_ARCHES: dict[str, tuple[int, int, int]] = {
    "x86_64": (0xC000003E, 41, 42),
    "aarch64": (0xC00000B7, 198, 203),
}


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


def _assemble(arch: int, nr_socket: int, nr_connect: int) -> list[tuple[int, int, int, int]]:
    """The filter as (code, jt, jf, k); a jump skips jt (true) or jf (false) instructions after its own."""
    deny = _RET_ERRNO | errno.EACCES
    no_uring = _RET_ERRNO | errno.ENOSYS
    # struct seccomp_data: int nr (offset 0); u32 arch (4); u64 ip (8); u64 args[6] (16...)
    return [
        (_LD_ABS_W, 0, 0, 4),  # 0: A = arch
        (_JEQ_K, 1, 0, arch),  # 1: native ABI → 3
        (_RET_K, 0, 0, _RET_ALLOW),  # 2: another ABI: not ours to judge
        (_LD_ABS_W, 0, 0, 0),  # 3: A = syscall number
        (_JGE_K, 8, 0, _X32_BIT),  # 4: x32 numbering → 13 (deny)
        (_JEQ_K, 4, 0, nr_socket),  # 5: socket → 10
        (_JEQ_K, 6, 0, nr_connect),  # 6: connect → 13 (deny)
        (_JEQ_K, 1, 0, _IO_URING_SETUP),  # 7: io_uring_setup → 9
        (_RET_K, 0, 0, _RET_ALLOW),  # 8: everything else
        (_RET_K, 0, 0, no_uring),  # 9
        (_LD_ABS_W, 0, 0, 16),  # 10: A = low 32 bits of args[0], the address family (little-endian)
        (_JEQ_K, 0, 1, socket.AF_UNIX),  # 11: AF_UNIX → 12, anything else → 13
        (_RET_K, 0, 0, _RET_ALLOW),  # 12
        (_RET_K, 0, 0, deny),  # 13
    ]


def deny_network() -> bool:
    """Forbid this process (and its threads and children) to open network sockets; True if it now holds.

    Irreversible. Returns False, with a warning logged, where seccomp is unavailable (not
    Linux, an architecture without a table here, a kernel or container that refuses the filter).
    """
    machine = platform.machine().lower()
    if not sys.platform.startswith("linux") or machine not in _ARCHES or sys.byteorder != "little":
        logger.warning(
            "no network sandbox for query workers on %s/%s (seccomp filter is Linux x86-64/AArch64)",
            sys.platform,
            machine,
        )
        return False
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    code = _assemble(*_ARCHES[machine])
    filters = (_SockFilter * len(code))(*[_SockFilter(c, jt, jf, k) for c, jt, jf, k in code])
    prog = _SockFprog(len(code), filters)
    if (
        libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
        or libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0
    ):
        err = ctypes.get_errno()
        logger.warning("cannot install the network sandbox in a query worker: %s", os.strerror(err))
        return False
    return True


def network_denied() -> bool:
    """True when this process cannot open an IPv4 socket (the sandbox holds); for tests and diagnostics."""
    try:
        socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()
    except PermissionError:
        return True
    return False
