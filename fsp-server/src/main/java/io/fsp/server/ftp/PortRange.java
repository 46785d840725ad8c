package io.fsp.server.ftp;

/** The ports passive data connections may use, {@code LOW-HIGH} inclusive. */
public record PortRange(int low, int high) {
    public PortRange {
        if (low < 1 || high > 65535) {
            throw new IllegalArgumentException("passive ports: " + low + "-" + high + " (expected: within 1-65535)");
        }
        if (low > high) {
            throw new IllegalArgumentException("passive ports: " + low + "-" + high
                    + ": port range is empty (expected: low <= high)");
        }
    }

    public static PortRange parse(String text) {
        String[] parts = text.strip().split("-", -1);
        if (parts.length != 2) {
            throw new IllegalArgumentException("'" + text + "' (expected: LOW-HIGH, e.g. 50000-50100)");
        }
        try {
            return new PortRange(Integer.parseInt(parts[0].strip()), Integer.parseInt(parts[1].strip()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' (expected: LOW-HIGH, e.g. 50000-50100)");
        }
    }

    public int size() {
        return high - low + 1;
    }

    @Override
    public String toString() {
        return low + "-" + high;
    }
}
