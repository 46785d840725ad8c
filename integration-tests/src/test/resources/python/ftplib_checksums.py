#!/usr/bin/env python3
"""The checksum commands with Python's ftplib, sent as raw commands (ftplib has no method for any of them).

XCRC, XMD5, XSHA1, XSHA256, XSHA512 (plain and with a quoted path and a range), GridFTP's CKSM with each
algorithm and ranges, HASH after RANG, the refusals (501, 550), and the per-connection allowance (450), each
value checked against hashlib/zlib over the bytes RETR delivers. Exits 1 with the reason on the first mismatch.
Usage: ftplib_checksums.py HOST PORT USER PASSWORD DIR [--tls]
"""
import hashlib
import io
import re
import ssl
import sys
import zlib
from ftplib import FTP, FTP_TLS

from ftplib_session import check, code, expect_error  # beside this script


def connect(host, port, user, password, tls):
    if tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE  # self-signed; the server is on loopback
        ftp = FTP_TLS(context=context, timeout=30)
    else:
        ftp = FTP(timeout=30)
    ftp.set_debuglevel(1)
    ftp.connect(host, int(port))
    if tls:
        ftp.auth()
    ftp.login(user, password)
    if tls:
        ftp.prot_p()
    return ftp


def retrieve(ftp, name):
    out = io.BytesIO()
    ftp.retrbinary("RETR " + name, out.write)
    return out.getvalue()


def values(data):
    """Lower-case hex by GridFTP's algorithm names."""
    return {
        "ADLER32": "%08x" % (zlib.adler32(data) & 0xFFFFFFFF),
        "CRC32": "%08x" % (zlib.crc32(data) & 0xFFFFFFFF),
        "MD5": hashlib.md5(data).hexdigest(),
        "SHA1": hashlib.sha1(data).hexdigest(),
        "SHA256": hashlib.sha256(data).hexdigest(),
        "SHA512": hashlib.sha512(data).hexdigest(),
    }


X_COMMANDS = {"XCRC": "CRC32", "XMD5": "MD5", "XSHA1": "SHA1", "XSHA256": "SHA256", "XSHA512": "SHA512"}


def main():
    host, port, user, password, directory = sys.argv[1:6]
    tls = "--tls" in sys.argv
    ftp = connect(host, port, user, password, tls)
    ftp.cwd(directory)

    feat = ftp.sendcmd("FEAT")
    lines = [l.strip() for l in feat.splitlines()[1:-1]]
    for feature in ("XCRC", "XMD5", "XSHA1", "XSHA256", "XSHA512", "CKSM ADLER32;CRC32;MD5;SHA1;SHA256;SHA512"):
        check(feature in lines, "FEAT lists %s: %r" % (feature, lines))
    check(any(l.startswith("HASH ") and "SHA-512" in l for l in lines), "FEAT HASH offers SHA-512: %r" % lines)
    check("RANG STREAM" not in lines, "RANG is for HASH only: %r" % lines)

    data = retrieve(ftp, "data.bin")
    whole = values(data)
    part = values(data[1000:60000])

    # X commands: 250 and the value in upper case, whole file and a quoted path with a range (end exclusive)
    for verb, algorithm in X_COMMANDS.items():
        reply = ftp.sendcmd(verb + " data.bin")
        check(reply == "250 " + whole[algorithm].upper(), "%s: %s" % (verb, reply))
        reply = ftp.sendcmd('%s "data.bin" 1000 60000' % verb)
        check(reply == "250 " + part[algorithm].upper(), "%s with a range: %s" % (verb, reply))
    spaced = retrieve(ftp, "name with blanks 7 8.bin")
    reply = ftp.sendcmd("XSHA256 name with blanks 7 8.bin")
    check(reply == "250 " + hashlib.sha256(spaced).hexdigest().upper(), "unquoted path with blanks: " + reply)

    # CKSM: every algorithm, the whole file (length -1) and ranges
    for algorithm, value in whole.items():
        reply = ftp.sendcmd("CKSM %s 0 -1 data.bin" % algorithm)
        check(reply == "213 " + value, "CKSM %s: %s" % (algorithm, reply))
        reply = ftp.sendcmd("CKSM %s 1000 59000 data.bin" % algorithm.lower())
        check(reply == "213 " + part[algorithm], "CKSM %s with a range: %s" % (algorithm, reply))
    tail = values(data[99000:])
    check(ftp.sendcmd("CKSM ADLER32 99000 -1 data.bin") == "213 " + tail["ADLER32"], "CKSM from an offset to the end")

    # HASH after RANG: the bytes from start to end inclusive, then the whole file again
    check(ftp.sendcmd("RANG 0 49").startswith("350"), "RANG 0 49")
    reply = ftp.sendcmd("HASH data.bin")
    check(reply == "213 SHA-256 0-49 %s data.bin" % hashlib.sha256(data[:50]).hexdigest(), "HASH after RANG: " + reply)
    reply = ftp.sendcmd("HASH data.bin")
    check(re.match(r"213 SHA-256 0-%d %s data.bin$" % (len(data), whole["SHA256"]), reply) is not None,
          "HASH without RANG: " + reply)
    check(ftp.sendcmd("OPTS HASH SHA-512") == "200 SHA-512", "OPTS HASH SHA-512")
    check(ftp.sendcmd("RANG 100 199").startswith("350"), "RANG 100 199")
    reply = ftp.sendcmd("HASH data.bin")
    check(reply == "213 SHA-512 100-199 %s data.bin" % hashlib.sha512(data[100:200]).hexdigest(), "SHA-512 range: " + reply)
    check(ftp.sendcmd("RANG 1 0").startswith("350"), "RANG 1 0 resets")

    # Refusals; the session goes on after each
    for command in ("XCRC", 'XMD5 "data.bin', 'XMD5 "data.bin" 7', 'XMD5 "data.bin" 9 3', 'XSHA1 "data.bin" 0 %d' % (len(data) + 1),
                    "CKSM", "CKSM MD5 0 -1", "CKSM NOPE 0 -1 data.bin", "CKSM MD5 -5 -1 data.bin", "CKSM MD5 0 x data.bin",
                    "CKSM MD5 %d -1 data.bin" % (len(data) + 1), "RANG", "RANG 9 3", "RANG x y", "OPTS HASH ADLER32"):
        expect_error(ftp, command, (501,))
    for command in ("XCRC no-such-file", "CKSM MD5 0 -1 no-such-file", "XMD5 escape.txt", "CKSM SHA256 0 -1 escape.txt",
                    "XSHA1 ../../outside.txt", "XSHA512 .", "HASH no-such-file"):
        reply = expect_error(ftp, command, (550,))
        check("/tmp" not in reply and "fsp-it" not in reply, "no real path in " + reply)
    check(code(ftp.sendcmd("NOOP")) == 200, "NOOP after the refusals")
    ftp.quit()

    # The per-connection allowance (the server runs with checksum-burst 8 MiB, checksum-rate 1 byte/s): big.bin
    # (5 MiB) twice takes it below zero, then every checksum is answered 450 until it refilled
    ftp = connect(host, port, user, password, tls)
    ftp.cwd(directory)
    check(code(ftp.sendcmd("XSHA256 big.bin")) == 250, "first read of big.bin")
    check(code(ftp.sendcmd("CKSM ADLER32 0 -1 big.bin")) == 213, "second read starts with 3 MiB left")
    for command in ("XCRC data.bin", "CKSM MD5 0 1 data.bin", "HASH data.bin"):
        reply = expect_error(ftp, command, (450,))
        check(re.match(r"450 .*try again in \d+ s$", reply) is not None, "450 says how long to wait: " + reply)
    check(code(ftp.sendcmd("NOOP")) == 200, "NOOP after 450")
    ftp.quit()
    print("CHECKSUMS OK", flush=True)


if __name__ == "__main__":
    main()
