package io.fsp.client.collect;

import io.fsp.crypto.NativeCrypto;
import java.util.Locale;
import java.util.Map;

/**
 * What a striped get did: bytes, time, whether every block was verified, where blocks came from, and each
 * retry's cause ({@code "relay:1: digest mismatch"} → count).
 *
 * @param stripedSeconds from sending FRET until its 226 (the server had placed every block), -1 if it never came
 * @param complete every block of the transfer is on disk (verified, or written in mode off)
 * @param verified every block was verified against the digest from the control channel
 * @param blocksBySource verified (or written) blocks per source: {@code relay:N}, {@code direct},
 *                       {@code origin}, {@code journal} (verified by an earlier run)
 * @param retries each reason a block had to be fetched again, with how often
 * @param notSent blocks the server neither read nor sent because this client held them verified from an
 *                earlier run (FHAV); counted under {@code journal} in {@code blocksBySource} too
 * @param firstVerifiedSeconds from the start of this JVM (for {@code fsp get}, of its process) until the first block
 *                             was verified on disk (or written, in mode off); -1 if none was
 * @param recoveries blocks that arrived damaged and were then verified, by where the good copy came from
 *                   ({@code relay}, {@code origin}): how many, and how long from finding the damage until the good
 *                   copy was verified on disk
 */
public record CollectSummary(String transferId, long bytes, double seconds, double stripedSeconds,
                             int files, long blocks, boolean complete,
                             boolean verified, String verifyMode, Map<String, Long> blocksBySource,
                             Map<String, Long> bytesBySource, Map<String, Long> retries, long notSent,
                             double firstVerifiedSeconds, Map<String, Recovery> recoveries, String error) {

    /** Damaged blocks recovered from one kind of source, and the time each took (milliseconds). */
    public record Recovery(int blocks, double medianMillis, double maxMillis) {
    }

    public double megabytesPerSecond() {
        return seconds > 0 ? bytes / 1e6 / seconds : 0;
    }

    /** The summary as one JSON object. */
    public String toJson() {
        return toJson("");
    }

    /** The summary as one JSON object, with {@code more} ({@code ,"key":value…}, already JSON) at its end. */
    public String toJson(String more) {
        StringBuilder sb = new StringBuilder("{");
        sb.append("\"transfer\":").append(quote(transferId));
        sb.append(",\"bytes\":").append(bytes);
        sb.append(",\"seconds\":").append(String.format(Locale.ROOT, "%.3f", seconds));
        sb.append(",\"striped_seconds\":").append(String.format(Locale.ROOT, "%.3f", stripedSeconds));
        sb.append(",\"mb_per_s\":").append(String.format(Locale.ROOT, "%.1f", megabytesPerSecond()));
        sb.append(",\"files\":").append(files);
        sb.append(",\"blocks\":").append(blocks);
        sb.append(",\"complete\":").append(complete);
        sb.append(",\"verified\":").append(verified);
        sb.append(",\"verify\":").append(quote(verifyMode));
        sb.append(",\"blocks_by_source\":").append(map(blocksBySource));
        sb.append(",\"bytes_by_source\":").append(map(bytesBySource));
        sb.append(",\"retries\":").append(retries.values().stream().mapToLong(Long::longValue).sum());
        sb.append(",\"retry_causes\":").append(map(retries));
        sb.append(",\"not_sent\":").append(notSent);
        sb.append(",\"first_verified_seconds\":").append(String.format(Locale.ROOT, "%.3f", firstVerifiedSeconds));
        sb.append(",\"recovered\":{");
        recoveries.forEach((k, r) -> sb.append(sb.charAt(sb.length() - 1) == '{' ? "" : ",").append(quote(k))
                .append(String.format(Locale.ROOT, ":{\"blocks\":%d,\"median_ms\":%.1f,\"max_ms\":%.1f}", r.blocks(),
                        r.medianMillis(), r.maxMillis())));
        sb.append('}');
        sb.append(",\"crypto\":").append(quote(NativeCrypto.description())); // what opened blocks in this process
        sb.append(",\"error\":").append(error == null ? "null" : quote(error));
        return sb.append(more).append('}').toString();
    }

    /** A few lines for people. */
    public String toText() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%s %d bytes in %d files, %d blocks, in %.2f s (%.1f MB/s)%n",
                complete ? (verified ? "verified" : "received (NOT verified: --verify off)") : "INCOMPLETE",
                bytes, files, blocks, seconds, megabytesPerSecond()));
        sb.append("  blocks by source:");
        blocksBySource.forEach((k, v) -> sb.append(' ').append(k).append('=').append(v));
        sb.append(System.lineSeparator());
        if (notSent > 0) {
            sb.append("  not sent again (held from an earlier run): ").append(notSent).append(" blocks").append(System.lineSeparator());
        }
        if (firstVerifiedSeconds >= 0) {
            sb.append(String.format(Locale.ROOT, "  first block %s %.3f s after the process started%n",
                    "off".equals(verifyMode) ? "written" : "verified", firstVerifiedSeconds));
        }
        long total = retries.values().stream().mapToLong(Long::longValue).sum();
        sb.append("  retries: ").append(total);
        retries.forEach((k, v) -> sb.append(System.lineSeparator()).append("    ").append(v).append(" x ").append(k));
        recoveries.forEach((k, r) -> sb.append(System.lineSeparator()).append(String.format(Locale.ROOT,
                "  damaged blocks recovered from %s: %d, median %.1f ms from damage found to good copy verified (max %.1f)",
                k, r.blocks(), r.medianMillis(), r.maxMillis())));
        if (error != null) {
            sb.append(System.lineSeparator()).append("  error: ").append(error);
        }
        return sb.toString();
    }

    /** {@code items} as a JSON array of strings. */
    public static String quote(java.util.List<String> items) {
        StringBuilder sb = new StringBuilder("[");
        for (String s : items) {
            sb.append(sb.length() > 1 ? "," : "").append(quote(s));
        }
        return sb.append(']').toString();
    }

    private static String map(Map<String, Long> m) {
        StringBuilder sb = new StringBuilder("{");
        m.forEach((k, v) -> {
            if (sb.length() > 1) {
                sb.append(',');
            }
            sb.append(quote(k)).append(':').append(v);
        });
        return sb.append('}').toString();
    }

    /** {@code s} as a JSON string ({@code null} for null). */
    public static String quote(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }
}
