package io.fsp.server.fs;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * Names of files being uploaded. STOR writes {@code .NAME.fsp-part-RANDOM} beside the target and renames
 * it into place only when the transfer completed, so a partial upload never looks complete. Listings hide
 * these names.
 */
public final class UploadNames {
    private static final Pattern PARTIAL = Pattern.compile("\\..*\\.fsp-part-[0-9a-f]{12}");
    private static final SecureRandom RANDOM = new SecureRandom();

    private UploadNames() {
    }

    public static String partialName(String target) {
        byte[] r = new byte[6];
        RANDOM.nextBytes(r);
        String base = target.length() > 200 ? target.substring(0, 200) : target;
        return "." + base + ".fsp-part-" + HexFormat.of().formatHex(r);
    }

    public static boolean isPartial(String name) {
        return PARTIAL.matcher(name).matches();
    }
}
