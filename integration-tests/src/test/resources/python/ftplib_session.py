#!/usr/bin/env python3
"""One complete FTP session with Python's ftplib (FTP or FTP_TLS with PROT P).

Walks the command list a user needs and checks every answer; exits 1 with the reason on the first
mismatch. The dialogue is printed (ftplib debug level 1 masks the password).
Usage: ftplib_session.py HOST PORT USER PASSWORD DIR [--tls] [--active]
"""
import hashlib
import io
import re
import sys
import zlib
from ftplib import FTP, FTP_TLS, error_perm, error_reply, error_temp
import ssl


def check(condition, message):
    if not condition:
        print("CHECK FAILED: " + message, flush=True)
        sys.exit(1)


def code(reply):
    return int(reply[:3])


def expect_error(ftp, command, codes):
    try:
        reply = ftp.sendcmd(command)
    except (error_perm, error_reply, error_temp) as e:
        reply = str(e)
    check(code(reply) in codes, "%s: %s (expected one of %s)" % (command, reply, codes))
    return reply


def retrieve(ftp, name, rest=None):
    out = io.BytesIO()
    ftp.retrbinary("RETR " + name, out.write, rest=rest)
    return out.getvalue()


def main():
    host, port, user, password, directory = sys.argv[1:6]
    tls = "--tls" in sys.argv
    active = "--active" in sys.argv

    if tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE  # self-signed; the Java side pins the fingerprint
        ftp = FTP_TLS(context=context, timeout=30)
    else:
        ftp = FTP(timeout=30)
    ftp.set_debuglevel(1)
    welcome = ftp.connect(host, int(port))
    check(welcome.startswith("220"), "greeting " + welcome)
    if tls:
        ftp.auth()
        ftp.login(user, password)
        check(ftp.sendcmd("PBSZ 0").startswith("200"), "PBSZ 0")
        ftp.prot_p()
    else:
        ftp.login(user, password)
    ftp.set_pasv(not active)

    # Session commands
    check(code(ftp.sendcmd("SYST")) == 215, "SYST")
    feat = ftp.sendcmd("FEAT")
    check(code(feat) == 211, "FEAT " + feat)
    for feature in ("UTF8", "SIZE", "MDTM", "REST STREAM", "MLST", "EPSV", "HASH"):
        check(feature in feat, "FEAT lists " + feature + ": " + feat)
    check(code(ftp.sendcmd("OPTS UTF8 ON")) == 200, "OPTS UTF8 ON")
    check(code(ftp.sendcmd("NOOP")) == 200, "NOOP")
    check(code(ftp.sendcmd("HELP")) in (211, 214), "HELP")
    check(code(ftp.sendcmd("STAT")) == 211, "STAT")
    check(code(ftp.sendcmd("MODE S")) == 200, "MODE S")
    check(code(ftp.sendcmd("STRU F")) == 200, "STRU F")
    expect_error(ftp, "MODE Z", (501, 502, 504))

    # Directories
    ftp.cwd("/" + directory)
    check(ftp.pwd() == "/" + directory, "PWD after CWD: " + ftp.pwd())
    check(ftp.mkd("sub").endswith("sub"), "MKD sub")
    check(code(ftp.sendcmd("XMKD sub2")) == 257, "XMKD sub2")
    check(code(ftp.sendcmd("XCWD sub")) == 250, "XCWD sub")
    check('"/%s/sub"' % directory in ftp.sendcmd("XPWD"), "XPWD in sub")
    check(code(ftp.sendcmd("CDUP")) in (200, 250), "CDUP")
    check(ftp.pwd() == "/" + directory, "PWD after CDUP: " + ftp.pwd())
    check(code(ftp.sendcmd("XRMD sub2")) == 250, "XRMD sub2")
    expect_error(ftp, "CWD no-such-dir", (550,))

    # Binary upload, SIZE, MDTM, download, download resumed with REST
    data = bytes((i * 7 + i // 251) % 256 for i in range(300_000))
    ftp.voidcmd("TYPE I")
    check(code(ftp.sendcmd("ALLO %d" % len(data))) in (200, 202), "ALLO")
    ftp.storbinary("STOR data.bin", io.BytesIO(data))
    check(ftp.size("data.bin") == len(data), "SIZE data.bin")
    mdtm = ftp.sendcmd("MDTM data.bin")
    check(re.match(r"213 \d{14}(\.\d+)?$", mdtm) is not None, "MDTM format: " + mdtm)
    check(retrieve(ftp, "data.bin") == data, "RETR data.bin returns what STOR sent")
    check(retrieve(ftp, "data.bin", rest=123_457) == data[123_457:], "REST 123457 + RETR")

    # Upload resumed with REST + STOR, and APPE
    ftp.storbinary("STOR resumed.bin", io.BytesIO(data[:100_000]))
    ftp.storbinary("STOR resumed.bin", io.BytesIO(data[100_000:]), rest=100_000)
    check(retrieve(ftp, "resumed.bin") == data, "REST 100000 + STOR completes the file")
    ftp.storbinary("APPE data.bin", io.BytesIO(b"tail"))
    check(ftp.size("data.bin") == len(data) + 4, "APPE adds 4 bytes")
    check(retrieve(ftp, "data.bin")[-4:] == b"tail", "APPE content")

    # STOU: the server picks the name and says which
    replies = []
    read_reply = ftp.getresp

    def recording_getresp():
        reply = read_reply()
        replies.append(reply)
        return reply

    ftp.getresp = recording_getresp
    ftp.storbinary("STOU", io.BytesIO(b"unique"))
    ftp.getresp = read_reply
    reply, final = replies[-2], replies[-1]
    names = [n for n in ftp.nlst() if n not in ("data.bin", "resumed.bin", "sub", ".", "..")]
    check(len(names) == 1, "STOU created exactly one new file: %s (%s / %s)" % (names, reply, final))
    check(names[0] in reply + final, "STOU reply names the file %s: %s / %s" % (names[0], reply, final))
    check(retrieve(ftp, names[0]) == b"unique", "STOU content")
    ftp.delete(names[0])

    # ASCII: CRLF on the wire, LF on the server's disk (checked by the Java side too)
    ftp.storlines("STOR text.txt", io.BytesIO(b"line one\nline two\n"))
    lines = []
    ftp.retrlines("RETR text.txt", lines.append)
    check(lines == ["line one", "line two"], "TYPE A RETR lines: %r" % lines)
    # retrbinary would send TYPE I first: read the TYPE A bytes from the data connection directly
    ftp.voidcmd("TYPE A")
    conn = ftp.transfercmd("RETR text.txt")
    raw = b""
    while True:
        chunk = conn.recv(8192)
        if not chunk:
            break
        raw += chunk
    if tls:
        try:
            conn.unwrap()
        except (ssl.SSLError, OSError):
            pass
    conn.close()
    ftp.voidresp()
    check(raw == b"line one\r\nline two\r\n", "TYPE A puts CRLF on the wire: %r" % raw)
    ftp.voidcmd("TYPE I")
    check(retrieve(ftp, "text.txt") == b"line one\nline two\n", "TYPE I returns the LF file")

    # Listings the client parses
    names = sorted(n for n in ftp.nlst() if n not in (".", ".."))
    check(names == ["data.bin", "resumed.bin", "sub", "text.txt"], "NLST: %r" % names)
    facts = dict(ftp.mlsd(facts=["type", "size", "modify"]))
    check(facts["sub"]["type"] == "dir", "MLSD sub is a dir: %r" % facts.get("sub"))
    check(int(facts["data.bin"]["size"]) == len(data) + 4, "MLSD size: %r" % facts.get("data.bin"))
    check(re.match(r"\d{14}", facts["data.bin"]["modify"]) is not None, "MLSD modify")
    listing = []
    ftp.dir(listing.append)
    check(any(l.endswith(" data.bin") and str(len(data) + 4) in l for l in listing), "LIST: %r" % listing)
    check(any(l.startswith("d") and l.endswith(" sub") for l in listing), "LIST shows sub as dir: %r" % listing)
    mlst = ftp.sendcmd("MLST data.bin")
    check(code(mlst) == 250 and "size=%d" % (len(data) + 4) in mlst.lower(), "MLST: " + mlst)

    # HASH (draft-bryan-ftpext-hash) with each algorithm, selected by OPTS HASH
    content = retrieve(ftp, "data.bin")
    expected = {
        "SHA-256": hashlib.sha256(content).hexdigest(),
        "SHA-1": hashlib.sha1(content).hexdigest(),
        "MD5": hashlib.md5(content).hexdigest(),
        "CRC32": "%08x" % (zlib.crc32(content) & 0xFFFFFFFF),
    }
    for algorithm, digest in expected.items():
        check(ftp.sendcmd("OPTS HASH " + algorithm).startswith("200"), "OPTS HASH " + algorithm)
        reply = ftp.sendcmd("HASH data.bin")
        match = re.match(r"213 (\S+) (\d+)-(\d+) ([0-9A-Fa-f]+) (.+)$", reply)
        check(match is not None, "HASH reply format: " + reply)
        check(match.group(1) == algorithm, "HASH algorithm: " + reply)
        # range end: the length, or the last byte's offset
        check(int(match.group(2)) == 0 and int(match.group(3)) in (len(content), len(content) - 1),
              "HASH range covers the file: " + reply)
        check(match.group(4).lower() == digest, "HASH %s digest %s: %s" % (algorithm, digest, reply))
    ftp.sendcmd("OPTS HASH SHA-256")
    expect_error(ftp, "OPTS HASH NOPE-512", (501, 504))

    # ABOR during a transfer, sent in-band while the data connection is still open and unread (an
    # asynchronous server must read it; ftp.abort() would send it as TCP urgent data, see the Java
    # side): the server answers 426 then 226, or 225/226, and keeps serving
    big = bytes(8 * 1024 * 1024)
    ftp.storbinary("STOR big.bin", io.BytesIO(big))
    conn = ftp.transfercmd("RETR big.bin")
    conn.recv(1024)
    ftp.putcmd("ABOR")
    abort_reply = ftp.getmultiline()
    if abort_reply.startswith("426"):
        abort_reply = ftp.getmultiline()
    check(code(abort_reply) in (225, 226), "ABOR reply: " + abort_reply)
    conn.close()
    check(code(ftp.sendcmd("NOOP")) == 200, "NOOP after ABOR")
    ftp.delete("big.bin")

    # Rename, delete, remove directory
    ftp.rename("resumed.bin", "renamed.bin")
    check("renamed.bin" in ftp.nlst() and "resumed.bin" not in ftp.nlst(), "RNFR/RNTO")
    expect_error(ftp, "RNTO x", (503,))
    expect_error(ftp, "RNFR no-such-file", (550,))
    ftp.delete("renamed.bin")
    expect_error(ftp, "DELE renamed.bin", (550,))
    ftp.rmd("sub")
    expect_error(ftp, "SIZE no-such-file", (550,))

    check(ftp.quit().startswith("221"), "QUIT")
    print("SESSION OK", flush=True)


if __name__ == "__main__":
    main()
