package io.fsp.config;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Maps configuration sources onto a record: each record component {@code fooBar} is the key
 * {@code foo-bar}. Layers apply in order (defaults, then the file, then the command line), each one
 * replacing only the keys it names. A key the record does not have is an error naming the source and key.
 *
 * <p>Value types: {@code String}, {@code int}, {@code long}, {@code boolean} ({@code true}/{@code false}),
 * {@link Duration} ({@code 500ms}, {@code 30s}, {@code 5m}, {@code 2h}, {@code 7d}, or ISO-8601 {@code PT30S}),
 * {@link Path} (relative to the file's directory), {@link ByteSize} ({@code 64K}, {@code 2G}), enums (by name, any
 * case, '-' for '_'), any type with a static {@code parse(String)} method ({@code HostPort}, {@code Fingerprint}),
 * and {@code List} of those (one value per repeated key).
 * {@link Optional} of those marks a setting that may be absent; the value {@code none} clears it.
 * A component whose type is a record the loader cannot parse (no static {@code parse(String)}) is a group of keys
 * ({@code ServerConfig.Limits}, {@code FtpCoreConfig}).
 */
public final class ConfigLoader {

    private ConfigLoader() {
    }

    /** Applies each source in turn to {@code defaults}. */
    public static <R extends Record> R load(R defaults, ConfigSource... layers) {
        R result = defaults;
        for (ConfigSource layer : layers) {
            result = apply(result, layer);
        }
        return result;
    }

    /** Returns a copy of {@code base} with every key of {@code source} set. */
    public static <R extends Record> R apply(R base, ConfigSource source) {
        return apply(base, source, leaves(base.getClass()), key -> Optional.empty());
    }

    /** {@link #apply} to the keys of {@code components}, each value within the bounds of its declaration. */
    @SuppressWarnings("unchecked")
    static <R extends Record> R apply(R base, ConfigSource source, Map<String, RecordComponent> components,
            Function<String, Optional<Setting>> declared) {
        Class<R> type = (Class<R>) base.getClass();
        Map<String, Object> values = convertAll(components, source, declared, flatten(base, new LinkedHashMap<>()));
        try {
            return build(type, values);
        } catch (IllegalArgumentException | ConfigException e) {
            throw new ConfigException(invalid(source, e.getMessage()), e);
        }
    }

    /** {@code into} with each key of {@code source} set to its value, converted to the type of its component. */
    static Map<String, Object> convertAll(Map<String, RecordComponent> components, ConfigSource source,
            Function<String, Optional<Setting>> declared, Map<String, Object> into) {
        for (var entry : source.values().entrySet()) {
            String key = entry.getKey();
            RecordComponent component = components.get(key);
            if (component == null) {
                throw new ConfigException(source.options() ? "--" + key + ": not a configuration key"
                        : source.location(key) + ": unknown key '" + key + "' (expected one of: "
                        + String.join(", ", components.keySet()) + ")");
            }
            try {
                Object value = convert(component.getGenericType(), entry.getValue(), source);
                declared.apply(key).ifPresent(s -> s.check(value instanceof Optional<?> o ? o.orElse(null) : value));
                into.put(key, value);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(source.describe(key) + ": " + e.getMessage(), e);
            }
        }
        return into;
    }

    /**
     * Each key of {@code type} with its component, in declaration order: a component whose type is a record without
     * a static {@code parse(String)} is a group, whose keys are {@code type}'s keys too (the group's name is not part
     * of them).
     */
    static Map<String, RecordComponent> leaves(Class<? extends Record> type) {
        Map<String, RecordComponent> leaves = new LinkedHashMap<>();
        for (RecordComponent c : type.getRecordComponents()) {
            if (isGroup(c)) {
                leaves.putAll(leaves(c.getType().asSubclass(Record.class)));
            } else if (leaves.put(keyOf(c.getName()), c) != null) {
                throw new IllegalStateException(type.getSimpleName() + ": key " + keyOf(c.getName()) + " twice");
            }
        }
        return leaves;
    }

    private static boolean isGroup(RecordComponent c) {
        return c.getType().isRecord() && parser(c.getType()) == null;
    }

    /** {@code c}'s static {@code parse(String)} returning a {@code c}, or null. */
    private static Method parser(Class<?> c) {
        try {
            Method parse = c.getMethod("parse", String.class);
            return Modifier.isStatic(parse.getModifiers()) && c.isAssignableFrom(parse.getReturnType()) ? parse : null;
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    /** Each key of {@code r} with its value, in declaration order (a group's keys where the group is). */
    public static Map<String, Object> values(Record r) {
        return flatten(r, new LinkedHashMap<>());
    }

    private static Map<String, Object> flatten(Record r, Map<String, Object> into) {
        for (RecordComponent c : r.getClass().getRecordComponents()) {
            Object value = read(r, c);
            if (isGroup(c)) {
                flatten((Record) value, into);
            } else {
                into.put(keyOf(c.getName()), value);
            }
        }
        return into;
    }

    private static Object read(Record r, RecordComponent c) {
        try {
            Method accessor = c.getAccessor();
            accessor.setAccessible(true);
            return accessor.invoke(r);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot read " + c.getName(), e);
        }
    }

    /**
     * A {@code type} of {@code values}, its groups built first; a key without a value is an empty {@code Optional}
     * or list. What a constructor refuses is thrown as it was ({@link IllegalArgumentException}).
     */
    static <R extends Record> R build(Class<R> type, Map<String, Object> values) {
        RecordComponent[] components = type.getRecordComponents();
        Object[] args = new Object[components.length];
        for (int i = 0; i < components.length; i++) {
            RecordComponent c = components[i];
            String key = keyOf(c.getName());
            if (isGroup(c)) {
                args[i] = build(c.getType().asSubclass(Record.class), values);
            } else if (values.containsKey(key)) {
                args[i] = values.get(key);
            } else if (c.getType() == Optional.class) {
                args[i] = Optional.empty();
            } else if (c.getType() == List.class) {
                args[i] = List.of();
            } else {
                throw new IllegalStateException(type.getSimpleName() + ": no value for " + key);
            }
        }
        try {
            Constructor<R> constructor = type.getDeclaredConstructor(
                    Arrays.stream(components).map(RecordComponent::getType).toArray(Class<?>[]::new));
            constructor.setAccessible(true);
            return constructor.newInstance(args);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException cause
                    && (cause instanceof IllegalArgumentException || cause instanceof ConfigException)) {
                throw cause;
            }
            throw new IllegalStateException("cannot build " + type.getSimpleName(), e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot build " + type.getSimpleName(), e);
        }
    }

    /**
     * A record's refusal of a value, said where that value was set: a message that starts with a key this source
     * set ({@code "max-block: 2G (expected: …)"}, or {@code "--max-block 2G: …"}) gets that key's file and line,
     * or is said as the option; any other names the source.
     */
    private static String invalid(ConfigSource source, String message) {
        for (String key : source.values().keySet()) {
            for (String prefix : List.of(key, "--" + key)) {
                if (message.startsWith(prefix) && message.length() > prefix.length()
                        && (message.charAt(prefix.length()) == ':' || message.charAt(prefix.length()) == ' ')) {
                    return source.describe(key) + message.substring(prefix.length());
                }
            }
        }
        return source.name() + ": " + message;
    }

    /** The configuration key of a record component: {@code passivePorts} is {@code passive-ports}. */
    public static String keyOf(String componentName) {
        return componentName.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
    }

    /** Every key {@code type} accepts, in declaration order (a group's keys where the group is). */
    public static List<String> keys(Class<? extends Record> type) {
        return List.copyOf(leaves(type).keySet());
    }

    private static Object convert(Type type, List<String> values, ConfigSource source) {
        if (type instanceof ParameterizedType p && p.getRawType() == List.class) {
            List<Object> list = new ArrayList<>();
            for (String v : values) {
                list.add(convertOne(p.getActualTypeArguments()[0], v, source));
            }
            return List.copyOf(list);
        }
        String last = values.get(values.size() - 1);
        if (type instanceof ParameterizedType p && p.getRawType() == Optional.class) {
            return last.equals("none") || last.isEmpty()
                    ? Optional.empty()
                    : Optional.of(convertOne(p.getActualTypeArguments()[0], last, source));
        }
        return convertOne(type, last, source);
    }

    private static Object convertOne(Type type, String value, ConfigSource source) {
        if (!(type instanceof Class<?> c)) {
            throw new IllegalStateException("unsupported configuration type " + type);
        }
        if (c == String.class) {
            return value;
        }
        if (c == int.class || c == Integer.class) {
            return parseNumber(value, Integer::parseInt, "an integer");
        }
        if (c == long.class || c == Long.class) {
            return parseNumber(value, Long::parseLong, "an integer");
        }
        if (c == boolean.class || c == Boolean.class) {
            return switch (value.toLowerCase(Locale.ROOT)) {
                case "true", "yes", "on" -> true;
                case "false", "no", "off" -> false;
                default -> throw new IllegalArgumentException("'" + value + "' (expected: true or false)");
            };
        }
        if (c == Duration.class) {
            return Durations.parse(value);
        }
        if (c == Path.class) {
            Path p = Path.of(value.startsWith("~/") ? System.getProperty("user.home") + value.substring(1) : value);
            return source.baseDir().filter(d -> !p.isAbsolute()).map(d -> d.resolve(p)).orElse(p);
        }
        if (c.isEnum()) {
            String wanted = value.replace('-', '_');
            for (Object constant : c.getEnumConstants()) {
                if (((Enum<?>) constant).name().equalsIgnoreCase(wanted)) {
                    return constant;
                }
            }
            throw new IllegalArgumentException("'" + value + "' (expected one of: " + Arrays.stream(c.getEnumConstants())
                    .map(e -> ((Enum<?>) e).name().toLowerCase(Locale.ROOT).replace('_', '-'))
                    .collect(Collectors.joining(", ")) + ")");
        }
        Method parse = parser(c);
        if (parse == null) {
            throw new IllegalStateException("unsupported configuration type " + c.getName());
        }
        try {
            return parse.invoke(null, value);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof IllegalArgumentException iae) {
                throw iae;
            }
            throw new IllegalStateException("cannot parse '" + value + "' as " + c.getSimpleName(), e.getCause());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot parse '" + value + "' as " + c.getSimpleName(), e);
        }
    }

    private static <T> T parseNumber(String value, java.util.function.Function<String, T> parser, String what) {
        try {
            return parser.apply(value.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + value + "' (expected: " + what + ")");
        }
    }
}
