package io.fsp.cli;

import io.fsp.config.ConfigLoader;
import io.fsp.config.ConfigSource;
import io.fsp.options.SettingOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;

/**
 * Where a command that connects takes its defaults from: {@link ClientSettings#defaults()}, then the client's
 * configuration file, then the options given, each option of a {@link ClientSettings} key by its name.
 */
final class ClientConfigOption {
    static final String ENVIRONMENT = "FSP_CONFIG";
    static final String NONE = "none";

    @Option(names = "--config", paramLabel = "FILE",
            description = "Defaults for this command (see conf/client.conf.example); options given here override it"
                    + " (default: $FSP_CONFIG, else ~/.config/fsp/client.conf if it exists; none: no file).")
    String config; // a String, not a Path: "none" names no file, and a relative name starts at the command's cwd

    /** The settings for the options picocli matched, over the configuration file, over the defaults. */
    ClientSettings settings(ParseResult parsed) {
        Invocation invocation = Invocation.current();
        return settings(parsed, invocation.environment(), invocation.home(), invocation.cwd());
    }

    ClientSettings settings(ParseResult parsed, Map<String, String> environment, Path home) {
        return settings(parsed, environment, home, Path.of("").toAbsolutePath());
    }

    ClientSettings settings(ParseResult parsed, Map<String, String> environment, Path home, Path cwd) {
        ConfigSource file = file(config == null ? null : Path.of(config), environment, home, cwd).map(ConfigSource::read)
                .orElse(ConfigSource.empty("defaults"));
        return ConfigLoader.load(ClientSettings.defaults(), file, secondsAsDuration(
                SettingOptions.source(parsed, ClientSettings.class)));
    }

    /**
     * The configuration file: {@code --config FILE}, else {@code $FSP_CONFIG}, else {@code client.conf} in
     * {@code $XDG_CONFIG_HOME/fsp} (default {@code ~/.config/fsp}) if it exists; empty for none. A file named by
     * the option or the variable must exist; {@value #NONE} names no file (scripts and tests that must not depend on
     * the user's defaults).
     */
    static Optional<Path> file(Path option, Map<String, String> environment, Path home) {
        return file(option, environment, home, Path.of("").toAbsolutePath());
    }

    /** {@link #file(Path, Map, Path)}, a relative name taken from {@code cwd}. */
    static Optional<Path> file(Path option, Map<String, String> environment, Path home, Path cwd) {
        String named = option != null ? option.toString() : environment.get(ENVIRONMENT);
        if (named != null && !named.isEmpty()) {
            return named.equals(NONE) ? Optional.empty() : Optional.of(cwd.resolve(named));
        }
        String xdg = environment.get("XDG_CONFIG_HOME");
        Path dir = xdg != null && Path.of(xdg).isAbsolute() ? Path.of(xdg) : home.resolve(".config");
        Path file = dir.resolve("fsp").resolve("client.conf");
        return Files.isRegularFile(file) ? Optional.of(file) : Optional.empty();
    }

    /** {@code --relay-timeout 10} has always meant seconds; in the file it is written {@code 10s}. */
    private static ConfigSource secondsAsDuration(ConfigSource options) {
        Map<String, List<String>> values = new LinkedHashMap<>(options.values());
        values.computeIfPresent("relay-timeout", (k, v) -> v.stream().map(s -> s.matches("\\d+") ? s + "s" : s).toList());
        return ConfigSource.commandLine(values);
    }
}
