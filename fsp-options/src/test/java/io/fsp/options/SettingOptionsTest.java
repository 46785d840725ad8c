package io.fsp.options;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fsp.config.ConfigSource;
import io.fsp.config.Setting;
import io.fsp.config.Settings;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/** Declared settings become options, and the options given become the command line layer. */
class SettingOptionsTest {
    record Config(int count, boolean on, List<String> ports, String quiet) {
    }

    static final Settings<Config> SETTINGS = new Settings<>(Config.class, List.of(
            Setting.of("count", "N", "1", "How many (default: {default}).").range(0, 10),
            Setting.flag("on", true, "On.").withNegation(),
            Setting.of("ports", "PORT", null, "Ports; repeatable."),
            Setting.of("quiet", "X", "x", "Only in the file.").fileOnly()));

    @CommandLine.Command(name = "test")
    static final class Cli {
        @CommandLine.Option(names = "--not-a-key")
        String other;
    }

    private static CommandLine cli() {
        CommandLine cl = new CommandLine(new Cli());
        SettingOptions.add(cl.getCommandSpec(), SETTINGS, key -> true);
        return cl;
    }

    @Test
    void eachDeclaredOptionIsAnOptionWithItsHelp() {
        CommandSpec spec = cli().getCommandSpec();
        assertEquals("How many (default: 1).", spec.findOption("--count").description()[0]);
        assertEquals("N", spec.findOption("--count").paramLabel());
        assertEquals(null, spec.findOption("--quiet"));
    }

    @Test
    void theOptionsMatchedAreTheKeysOfTheirNames() {
        CommandLine.ParseResult parsed = cli().parseArgs("--count", "3", "--no-on", "--ports", "21", "--ports", "2121",
                "--not-a-key", "x");
        ConfigSource options = SettingOptions.source(parsed, SETTINGS);
        assertEquals(Map.of("count", List.of("3"), "on", List.of("false"), "ports", List.of("21", "2121")),
                options.values());
        Config c = SETTINGS.load(options);
        assertEquals(3, c.count());
        assertEquals(false, c.on());
        assertEquals(List.of("21", "2121"), c.ports());
        assertEquals(Map.of("count", List.of("3")), SettingOptions.source(parsed, Config.class).values().entrySet()
                .stream().filter(e -> e.getKey().equals("count"))
                .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)));
    }
}
