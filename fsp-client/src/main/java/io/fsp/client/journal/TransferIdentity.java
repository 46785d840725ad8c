package io.fsp.client.journal;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * What a journal belongs to. A journal written for another server, another path, the same path after the file
 * changed (size, modification time or manifest digest), or under another verification mode is not trusted: a
 * block recorded by a run that did not verify (or verified by other means) is never called verified by this one.
 *
 * @param server the server as the user named it, e.g. {@code alice@host:2121}
 * @param path the remote path of the file or directory retrieved
 * @param size total bytes of the transfer, or -1 when unknown
 * @param modifiedMillis the remote modification time, or -1 when unknown
 * @param manifestDigest a digest over the server's block manifest (hex), or empty when unknown
 * @param verifyMode how this run verifies blocks ({@code fiver}, {@code riva}, {@code off})
 */
public record TransferIdentity(String server, String path, long size, long modifiedMillis, String manifestDigest,
                               String verifyMode) {
    public TransferIdentity {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(verifyMode, "verifyMode");
        manifestDigest = manifestDigest == null ? "" : manifestDigest;
        if (size < -1) {
            throw new IllegalArgumentException("size: " + size + " (expected: >= -1)");
        }
    }

    /** The exact bytes stored in a journal's header and compared on reopen. */
    byte[] canonical() {
        return ("fsp-transfer\nserver=" + escape(server) + "\npath=" + escape(path) + "\nsize=" + size
                + "\nmtime=" + modifiedMillis + "\nmanifest=" + escape(manifestDigest) + "\nverify=" + escape(verifyMode) + "\n")
                .getBytes(StandardCharsets.UTF_8);
    }

    private static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\n", "\\n");
    }
}
