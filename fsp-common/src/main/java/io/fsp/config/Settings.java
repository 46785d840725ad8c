package io.fsp.config;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Every setting of one program, declared once, and the record they load into: {@link #defaults()} from the
 * declarations, {@link #load} from files and options with each declaration's bounds. The record may group its
 * settings in nested records ({@link ConfigLoader}); every key it has must be declared here, and only those.
 */
public final class Settings<R extends Record> {
    private final Class<R> type;
    private final Map<String, Setting> byKey = new LinkedHashMap<>();
    /** Each key's component, in the order of the declarations (the order errors list them in). */
    private final Map<String, RecordComponent> components = new LinkedHashMap<>();

    public Settings(Class<R> type, List<Setting> declared) {
        this.type = type;
        for (Setting s : declared) {
            if (byKey.put(s.key(), s) != null) {
                throw new IllegalStateException(type.getSimpleName() + ": " + s.key() + " declared twice");
            }
        }
        Map<String, RecordComponent> leaves = ConfigLoader.leaves(type);
        byKey.keySet().stream().filter(leaves::containsKey).forEach(k -> components.put(k, leaves.get(k)));
        if (!leaves.keySet().equals(byKey.keySet())) {
            Set<String> undeclared = leaves.keySet().stream().filter(k -> !byKey.containsKey(k))
                    .collect(Collectors.toCollection(java.util.TreeSet::new));
            Set<String> unused = byKey.keySet().stream().filter(k -> !leaves.containsKey(k))
                    .collect(Collectors.toCollection(java.util.TreeSet::new));
            throw new IllegalStateException(type.getSimpleName() + ": undeclared " + undeclared + ", not in the record "
                    + unused);
        }
    }

    public Class<R> type() {
        return type;
    }

    /** The declarations, in the order given (the order of help). */
    public List<Setting> all() {
        return List.copyOf(byKey.values());
    }

    public Optional<Setting> find(String key) {
        return Optional.ofNullable(byKey.get(key));
    }

    /** Whether {@code key} takes several values (a repeated key, a repeatable option). */
    public boolean repeatable(String key) {
        return components.get(key).getGenericType() instanceof ParameterizedType p && p.getRawType() == List.class;
    }

    /** Every setting at its declared default. */
    public R defaults() {
        Map<String, List<String>> values = new LinkedHashMap<>();
        byKey.values().stream().filter(s -> s.defaultValue() != null)
                .forEach(s -> values.put(s.key(), List.of(s.defaultValue())));
        return ConfigLoader.build(type, ConfigLoader.convertAll(components, ConfigSource.of("defaults", values),
                key -> Optional.empty(), new LinkedHashMap<>()));
    }

    /** The defaults, then each layer in turn (a file, the command line), each value within its bounds. */
    public R load(ConfigSource... layers) {
        R result = defaults();
        for (ConfigSource layer : layers) {
            result = ConfigLoader.apply(result, layer, components, this::find);
        }
        return result;
    }
}
