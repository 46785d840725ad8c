package io.fsp.options;

import io.fsp.config.ConfigLoader;
import io.fsp.config.ConfigSource;
import io.fsp.config.Setting;
import io.fsp.config.Settings;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * A program's declared settings as its command line options, each {@code --key} with the declaration's label and
 * help, and back: what picocli matched as the command line layer of the configuration ({@link ConfigSource}).
 */
public final class SettingOptions {

    private SettingOptions() {
    }

    /**
     * Adds an option to {@code spec} for each declared setting that is one and that {@code keys} accepts, in the order
     * of the declarations; the command's own options ({@code --config}, help) follow them in its help.
     */
    public static CommandSpec add(CommandSpec spec, Settings<?> settings, Predicate<String> keys) {
        List<OptionSpec> own = List.copyOf(spec.options());
        own.forEach(spec::remove);
        for (Setting s : settings.all()) {
            if (!s.option() || !keys.test(s.key())) {
                continue;
            }
            OptionSpec.Builder option = OptionSpec.builder("--" + s.key()).description(s.help());
            if (s.label() == null) {
                option.type(Boolean.class).arity("0").negatable(s.negatable());
            } else if (settings.repeatable(s.key())) {
                option.type(List.class).auxiliaryTypes(String.class).paramLabel(s.label());
            } else {
                option.type(String.class).paramLabel(s.label());
            }
            spec.addOption(option.build());
        }
        own.forEach(spec::addOption);
        return spec;
    }

    /** The matched options that are declared settings of {@code settings}. */
    public static ConfigSource source(ParseResult parsed, Settings<?> settings) {
        return source(parsed, settings.all().stream().map(Setting::key).toList());
    }

    /** The matched options that are keys of {@code record}, a record the configuration loads into. */
    public static ConfigSource source(ParseResult parsed, Class<? extends Record> record) {
        return source(parsed, ConfigLoader.keys(record));
    }

    /**
     * The options picocli matched that are {@code keys}, each by its name without {@code --} ({@code --max-retain 7d}
     * is {@code max-retain = 7d}), with the values as typed; a flag gives its value ({@code --no-verify-blocks} is
     * {@code verify-blocks = false}). Other options (help, {@code --config}, a command's own) are not configuration.
     */
    private static ConfigSource source(ParseResult parsed, Collection<String> keys) {
        Map<String, List<String>> values = new LinkedHashMap<>();
        for (OptionSpec option : parsed.matchedOptions()) {
            String key = option.longestName().replaceFirst("^--", "");
            if (keys.contains(key)) {
                values.put(key, option.typeInfo().isBoolean() ? List.of(String.valueOf((Object) option.getValue()))
                        : option.originalStringValues());
            }
        }
        return ConfigSource.commandLine(values);
    }
}
