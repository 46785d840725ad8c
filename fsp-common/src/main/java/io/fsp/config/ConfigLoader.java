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
import java.util.List;
import java.util.Locale;
import java.util.Optional;
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
    @SuppressWarnings("unchecked")
    public static <R extends Record> R apply(R base, ConfigSource source) {
        Class<R> type = (Class<R>) base.getClass();
        RecordComponent[] components = type.getRecordComponents();
        Object[] args = new Object[components.length];
        for (int i = 0; i < components.length; i++) {
            try {
                args[i] = components[i].getAccessor().invoke(base);
            } catch (IllegalAccessException | InvocationTargetException e) {
                throw new IllegalStateException("cannot read " + components[i].getName(), e);
            }
        }
        for (var entry : source.values().entrySet()) {
            String key = entry.getKey();
            int index = indexOf(components, key);
            if (index < 0) {
                throw new ConfigException(source.options() ? "--" + key + ": not a configuration key"
                        : source.location(key) + ": unknown key '" + key + "' (expected one of: " + keys(components) + ")");
            }
            RecordComponent component = components[index];
            try {
                args[index] = convert(component.getGenericType(), entry.getValue(), source);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(source.describe(key) + ": " + e.getMessage(), e);
            }
        }
        try {
            Constructor<R> constructor = type.getDeclaredConstructor(
                    Arrays.stream(components).map(RecordComponent::getType).toArray(Class<?>[]::new));
            constructor.setAccessible(true);
            return constructor.newInstance(args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IllegalArgumentException || cause instanceof ConfigException) {
                throw new ConfigException(invalid(source, cause.getMessage()), cause);
            }
            throw new IllegalStateException("cannot build " + type.getSimpleName(), cause);
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

    /** Every key {@code type} accepts, in declaration order. */
    public static List<String> keys(Class<? extends Record> type) {
        return Arrays.stream(type.getRecordComponents()).map(c -> keyOf(c.getName())).toList();
    }

    private static String keys(RecordComponent[] components) {
        return Arrays.stream(components).map(c -> keyOf(c.getName())).collect(Collectors.joining(", "));
    }

    private static int indexOf(RecordComponent[] components, String key) {
        for (int i = 0; i < components.length; i++) {
            if (keyOf(components[i].getName()).equals(key)) {
                return i;
            }
        }
        return -1;
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
        try {
            Method parse = c.getMethod("parse", String.class);
            if (Modifier.isStatic(parse.getModifiers()) && c.isAssignableFrom(parse.getReturnType())) {
                return parse.invoke(null, value);
            }
        } catch (NoSuchMethodException e) {
            // falls through to the error below
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof IllegalArgumentException iae) {
                throw iae;
            }
            throw new IllegalStateException("cannot parse '" + value + "' as " + c.getSimpleName(), e.getCause());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot parse '" + value + "' as " + c.getSimpleName(), e);
        }
        throw new IllegalStateException("unsupported configuration type " + c.getName());
    }

    private static <T> T parseNumber(String value, java.util.function.Function<String, T> parser, String what) {
        try {
            return parser.apply(value.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + value + "' (expected: " + what + ")");
        }
    }
}
