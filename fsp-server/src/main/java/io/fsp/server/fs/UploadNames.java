package io.fsp.server.fs;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * Names of files being uploaded. STOR writes {@code .NAME.fsp-part-RANDOM} beside the target and renames
 * it into place only when the transfer completed, so a partial upload never looks complete. FCOL's collector
 * writes each file into a private directory {@code .NAME.fsp-part-RANDOM/} likewise; a client's collection
 * writes {@code .NAME.fsp-part} beside its lock {@code .NAME.fsp-lock} and journal. Listings hide the partial
 * names, and no FTP command reaches any of these names ({@link #isReserved}): one user cannot write, rename or
 * delete what another user's upload or collection is writing, nor its lock.
 */
public final class UploadNames {
    /** STOR's partial names, and FCOL's ({@code .NAME.fsp-part}, the collector's writer's, without a random part). */
    private static final Pattern PARTIAL = Pattern.compile("\\..*\\.fsp-part(-[0-9a-f]{12})?");
    /** Every name an upload or collection works under: partial files, locks, journals, manifests. */
    private static final Pattern RESERVED = Pattern.compile("\\..*\\.fsp-(part|lock|journal|manifest)(-[0-9a-f]{12})?");
    private static final SecureRandom RANDOM = new SecureRandom();

    private UploadNames() {
    }

    /** File names have at most 255 bytes (NAME_MAX); the dot, suffix and random part take 23 of them. */
    private static final int MAX_BASE_BYTES = 255 - 23;

    public static String partialName(String target) {
        byte[] r = new byte[6];
        RANDOM.nextBytes(r);
        return "." + shortened(target) + ".fsp-part-" + HexFormat.of().formatHex(r);
    }

    /** {@code name} cut to at most {@link #MAX_BASE_BYTES} UTF-8 bytes, at a character's end. */
    private static String shortened(String name) {
        int bytes = 0;
        for (int i = 0; i < name.length(); ) {
            int cp = name.codePointAt(i);
            int n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            if (bytes + n > MAX_BASE_BYTES) {
                return name.substring(0, i);
            }
            bytes += n;
            i += Character.charCount(cp);
        }
        return name;
    }

    public static boolean isPartial(String name) {
        return PARTIAL.matcher(name).matches();
    }

    /** Whether {@code name} is one that uploads and collections work under, which no FTP command may name. */
    public static boolean isReserved(String name) {
        return RESERVED.matcher(name).matches();
    }
}
