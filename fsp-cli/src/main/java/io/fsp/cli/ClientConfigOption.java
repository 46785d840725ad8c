package io.fsp.cli;

import io.fsp.config.ConfigLoader;
import io.fsp.config.ConfigSource;
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
    Path config;

    /** The settings for the options picocli matched, over the configuration file, over the defaults. */
    ClientSettings settings(ParseResult parsed) {
        return settings(parsed, System.getenv(), Path.of(System.getProperty("user.home")));
    }

    ClientSettings settings(ParseResult parsed, Map<String, String> environment, Path home) {
        ConfigSource file = file(config, environment, home).map(ConfigSource::read)
                .orElse(ConfigSource.empty("defaults"));
        return ConfigLoader.load(ClientSettings.defaults(), file, secondsAsDuration(
                ConfigSource.options(parsed, ClientSettings.class)));
    }

    /**
     * The configuration file: {@code --config FILE}, else {@code $FSP_CONFIG}, else {@code client.conf} in
     * {@code $XDG_CONFIG_HOME/fsp} (default {@code ~/.config/fsp}) if it exists; empty for none. A file named by
     * the option or the variable must exist; {@value #NONE} names no file (scripts and tests that must not depend on
     * the user's defaults).
     */
    static Optional<Path> file(Path option, Map<String, String> environment, Path home) {
        String named = option != null ? option.toString() : environment.get(ENVIRONMENT);
        if (named != null && !named.isEmpty()) {
            return named.equals(NONE) ? Optional.empty() : Optional.of(Path.of(named));
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
