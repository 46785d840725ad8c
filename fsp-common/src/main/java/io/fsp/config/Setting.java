package io.fsp.config;

/**
 * One setting of a program, declared once: the loader, the command line and the {@code conf/*.example} check read it.
 * Its type is the type of the record component of its name ({@code max-connections} is {@code maxConnections}).
 *
 * @param key          the configuration file's key, and without {@code --} the command line option
 * @param label        the value's name in help ({@code SIZE}, {@code HOST:PORT}); null for an on/off flag
 * @param defaultValue the default as a file would write it; null for none (an empty {@code Optional} or list)
 * @param doc          one line of help; {@code {default}} in it stands for the default
 * @param min          least value of a number
 * @param max          greatest value of a number
 * @param option       whether the command line has it too, or only the file
 * @param negatable    whether a flag has a {@code --no-} form
 */
public record Setting(String key, String label, String defaultValue, String doc, long min, long max, boolean option,
                      boolean negatable) {

    public Setting {
        if (!key.matches("[a-z][a-z0-9-]*")) {
            throw new IllegalArgumentException("key: '" + key + "' (expected: lower-case letters, digits and '-')");
        }
    }

    /** A setting with a value named {@code label} in help. */
    public static Setting of(String key, String label, String defaultValue, String doc) {
        return new Setting(key, label, defaultValue, doc, Long.MIN_VALUE, Long.MAX_VALUE, true, false);
    }

    /** An on/off setting: a flag on the command line, {@code true} or {@code false} in a file. */
    public static Setting flag(String key, boolean defaultValue, String doc) {
        return new Setting(key, null, String.valueOf(defaultValue), doc, Long.MIN_VALUE, Long.MAX_VALUE, true, false);
    }

    /** This setting taking only numbers from {@code min} to {@code max}. */
    public Setting range(long least, long greatest) {
        return new Setting(key, label, defaultValue, doc, least, greatest, option, negatable);
    }

    /** This setting set only in the configuration file. */
    public Setting fileOnly() {
        return new Setting(key, label, defaultValue, doc, min, max, false, negatable);
    }

    /** This flag with a {@code --no-} form. */
    public Setting withNegation() {
        return new Setting(key, label, defaultValue, doc, min, max, option, true);
    }

    /** The help line, the default written in. */
    public String help() {
        return doc.replace("{default}", String.valueOf(defaultValue));
    }

    /** Refuses a number outside the bounds, in the words of the record checks: {@code 0 (expected: 1..256)}. */
    void check(Object value) {
        if (value instanceof Number n && (n.longValue() < min || n.longValue() > max)) {
            throw new IllegalArgumentException(n + " (expected: " + (max == Long.MAX_VALUE ? ">= " + min : min + ".." + max) + ")");
        }
    }
}
