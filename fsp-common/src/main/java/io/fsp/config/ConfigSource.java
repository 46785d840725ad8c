package io.fsp.config;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Values for configuration keys from one place: a file ({@code conf/server.conf}) or the command line.
 * A key may repeat (every occurrence is kept, in order) for list-valued settings such as {@code listen}.
 *
 * <p>File format: one {@code key = value} per line; blank lines and lines starting with {@code #} are
 * ignored; the value is the rest of the line with surrounding blanks removed (no quoting, no escapes).
 *
 * @param name    where the values come from, used in error messages ({@code "conf/server.conf"})
 * @param values  each key with its values in order of appearance
 * @param lines   for a file, the line of each key's last occurrence (for error messages)
 * @param baseDir directory against which relative paths are resolved (the file's directory), if any
 * @param options whether the keys were given as command line options, so that errors name {@code --key}
 */
public record ConfigSource(String name, Map<String, List<String>> values, Map<String, Integer> lines,
                           Optional<Path> baseDir, boolean options) {
    /** Longest line a configuration file may have; a longer one is surely not configuration. */
    static final int MAX_LINE_LENGTH = 16 * 1024;
    static final long MAX_FILE_SIZE = 1024 * 1024;

    public ConfigSource {
        Map<String, List<String>> copy = new LinkedHashMap<>();
        values.forEach((k, v) -> copy.put(k, List.copyOf(v)));
        values = java.util.Collections.unmodifiableMap(copy);
        lines = Map.copyOf(lines);
    }

    /** Values given on the command line (or in code); relative paths stay relative to the working directory. */
    public static ConfigSource of(String name, Map<String, List<String>> values) {
        return new ConfigSource(name, values, Map.of(), Optional.empty(), false);
    }

    /** Command line options, each {@code --key}; relative paths stay relative to the working directory. */
    public static ConfigSource commandLine(Map<String, List<String>> values) {
        return new ConfigSource("command line", values, Map.of(), Optional.empty(), true);
    }

    /** An empty source: every setting keeps its value from the layer below. */
    public static ConfigSource empty(String name) {
        return of(name, Map.of());
    }

    /** Reads {@code file}; malformed lines are errors naming the file and line. */
    public static ConfigSource read(Path file) {
        String name = file.toString();
        List<String> text;
        try {
            long size = Files.size(file);
            if (size > MAX_FILE_SIZE) {
                throw new ConfigException(name + ": " + size + " bytes (expected: <= " + MAX_FILE_SIZE + ")");
            }
            text = List.of(StandardCharsets.UTF_8.newDecoder()
                    .decode(java.nio.ByteBuffer.wrap(Files.readAllBytes(file))).toString().split("\r?\n", -1));
        } catch (CharacterCodingException e) {
            throw new ConfigException(name + ": not valid UTF-8");
        } catch (IOException e) {
            throw new ConfigException(name + ": cannot read (" + e.getMessage() + ")", e);
        }
        Map<String, List<String>> values = new LinkedHashMap<>();
        Map<String, Integer> lines = new LinkedHashMap<>();
        for (int i = 0; i < text.size(); i++) {
            String line = text.get(i).strip();
            int lineNo = i + 1;
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            if (line.length() > MAX_LINE_LENGTH) {
                throw new ConfigException(name + ":" + lineNo + ": line length: " + line.length()
                        + " (expected: <= " + MAX_LINE_LENGTH + ")");
            }
            int eq = line.indexOf('=');
            if (eq <= 0) {
                throw new ConfigException(name + ":" + lineNo + ": '" + line + "' (expected: key = value)");
            }
            String key = line.substring(0, eq).strip();
            String value = line.substring(eq + 1).strip();
            if (!key.matches("[a-z][a-z0-9-]*")) {
                throw new ConfigException(name + ":" + lineNo + ": key '" + key
                        + "' (expected: lower-case letters, digits and '-')");
            }
            values.computeIfAbsent(key, k -> new ArrayList<>()).add(value);
            lines.put(key, lineNo);
        }
        Path dir = file.toAbsolutePath().getParent();
        return new ConfigSource(name, values, lines, Optional.ofNullable(dir), false);
    }

    /** Where {@code key} was set: {@code "conf/server.conf:12"}, or the source's name. */
    String location(String key) {
        Integer line = lines.get(key);
        return line == null ? name : name + ":" + line;
    }

    /** {@code key} where it was set, for an error: {@code "conf/relay.conf:12: quota"}, or {@code "--quota"}. */
    String describe(String key) {
        return options ? "--" + key : location(key) + ": " + key;
    }
}
