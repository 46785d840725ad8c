package io.fsp.server.auth;

import de.mkammerer.argon2.Argon2Advanced;
import de.mkammerer.argon2.Argon2Factory;
import de.mkammerer.argon2.Argon2Version;
import io.fsp.program.WarmUp;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bouncycastle.crypto.generators.Argon2BytesGenerator;
import org.bouncycastle.crypto.params.Argon2Parameters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Argon2id password hashes (RFC 9106) in the PHC string form that the {@code argon2} tool prints:
 * {@code $argon2id$v=19$m=19456,t=2,p=1$SALT$HASH} (unpadded Base64). The default cost is OWASP's
 * recommendation (19 MiB, 2 passes): memory-hard, yet a login costs tens of milliseconds.
 *
 * <p>The hashing itself is libargon2's (the reference implementation, native, through JNA): Bouncy Castle's Java
 * takes several times its CPU under the C1-only JIT the launchers run with. Where the native
 * library does not load, or with {@code -Dfsp.crypto=jdk}, Bouncy Castle's serves; both give the same bytes.
 */
public final class PasswordHasher {
    private static final Logger log = LoggerFactory.getLogger(PasswordHasher.class);
    public static final int MEMORY_KIB = 19 * 1024;
    public static final int ITERATIONS = 2;
    public static final int PARALLELISM = 1;
    /** Upper bounds on parameters read from a users file, so one bad line cannot exhaust the server. */
    private static final int MAX_MEMORY_KIB = 1024 * 1024;
    private static final int MAX_ITERATIONS = 64;
    private static final int MAX_PARALLELISM = 16;
    private static final int SALT_BYTES = 16;
    private static final int HASH_BYTES = 32;
    private static final Pattern PHC = Pattern.compile(
            "\\$argon2id\\$v=19\\$m=(\\d{1,8}),t=(\\d{1,3}),p=(\\d{1,2})\\$([A-Za-z0-9+/]+)\\$([A-Za-z0-9+/]+)");
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Base64.Encoder B64 = Base64.getEncoder().withoutPadding();
    private static final Base64.Decoder B64D = Base64.getDecoder();

    private PasswordHasher() {
    }

    /**
     * Hashes a throw-away password as a {@link WarmUp} before the first login: it loads libargon2, or
     * where that does not load, lets the JIT compile Bouncy Castle's Argon2 (interpreted, a verification costs
     * several times a compiled one, and the first client of a fresh server would wait for it).
     */
    public static void warmUpInBackground() {
        WarmUp.inBackground("Argon2", () -> {
            for (int i = 0; i < (Native.ARGON2 != null ? 1 : 2); i++) {
                verify(hash("warm-up"), "warm-up");
            }
        });
    }

    /** A new hash of {@code password} with a fresh random salt and the default cost. */
    public static String hash(String password) {
        byte[] salt = new byte[SALT_BYTES];
        RANDOM.nextBytes(salt);
        byte[] hash = derive(password, salt, MEMORY_KIB, ITERATIONS, PARALLELISM, HASH_BYTES);
        return "$argon2id$v=19$m=" + MEMORY_KIB + ",t=" + ITERATIONS + ",p=" + PARALLELISM
                + "$" + B64.encodeToString(salt) + "$" + B64.encodeToString(hash);
    }

    /** Checks that {@code phc} is a well-formed Argon2id hash within the cost bounds; throws if not. */
    public static void validate(String phc) {
        parse(phc);
    }

    /** Whether {@code password} matches {@code phc}; compares in constant time. */
    public static boolean verify(String phc, String password) {
        Parsed p = parse(phc);
        byte[] actual = derive(password, p.salt, p.memory, p.iterations, p.parallelism, p.hash.length);
        return MessageDigest.isEqual(actual, p.hash);
    }

    private record Parsed(int memory, int iterations, int parallelism, byte[] salt, byte[] hash) {
    }

    private static Parsed parse(String phc) {
        Matcher m = PHC.matcher(phc);
        if (!m.matches()) {
            throw new IllegalArgumentException("password hash: not an Argon2id PHC string"
                    + " (expected: $argon2id$v=19$m=..,t=..,p=..$salt$hash; make one with 'fsp-server hash-password')");
        }
        int memory = Integer.parseInt(m.group(1));
        int iterations = Integer.parseInt(m.group(2));
        int parallelism = Integer.parseInt(m.group(3));
        if (memory < 8 * parallelism || memory > MAX_MEMORY_KIB) {
            throw new IllegalArgumentException("password hash: m=" + memory + " (expected: 8*p.." + MAX_MEMORY_KIB + ")");
        }
        if (iterations < 1 || iterations > MAX_ITERATIONS) {
            throw new IllegalArgumentException("password hash: t=" + iterations + " (expected: 1.." + MAX_ITERATIONS + ")");
        }
        if (parallelism < 1 || parallelism > MAX_PARALLELISM) {
            throw new IllegalArgumentException("password hash: p=" + parallelism + " (expected: 1.." + MAX_PARALLELISM + ")");
        }
        byte[] salt;
        byte[] hash;
        try {
            salt = B64D.decode(m.group(4));
            hash = B64D.decode(m.group(5));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("password hash: salt or hash is not Base64");
        }
        if (salt.length < 8 || hash.length < 16 || hash.length > 64) {
            throw new IllegalArgumentException("password hash: salt " + salt.length + " bytes, hash " + hash.length
                    + " bytes (expected: salt >= 8, hash 16..64)");
        }
        return new Parsed(memory, iterations, parallelism, salt, hash);
    }

    private static byte[] derive(String password, byte[] salt, int memory, int iterations, int parallelism, int length) {
        byte[] secret = password.getBytes(StandardCharsets.UTF_8);
        Argon2Advanced argon2 = Native.ARGON2;
        // The JNA binding cannot pass an empty password (it allocates its length); Java derives the same bytes.
        return argon2 != null && secret.length > 0
                ? deriveNative(argon2, secret, salt, memory, iterations, parallelism, length)
                : deriveJava(secret, salt, memory, iterations, parallelism, length);
    }

    /** libargon2, or null where it did not load; loaded on first use, and said once which serves. */
    static final class Native {
        static final Argon2Advanced ARGON2 = load();

        private static Argon2Advanced load() {
            if ("jdk".equals(System.getProperty("fsp.crypto", ""))) {
                log.info("password hashing: Argon2id by Bouncy Castle (fsp.crypto=jdk)");
                return null;
            }
            try {
                Argon2Advanced a = Argon2Factory.createAdvanced(Argon2Factory.Argon2Types.ARGON2id);
                a.rawHashAdvanced(1, 8, 1, new byte[1], new byte[8], null, null, 16, Argon2Version.V13); // links it
                log.info("password hashing: Argon2id by libargon2 (native)");
                return a;
            } catch (Throwable e) { // UnsatisfiedLinkError, a JNA LinkageError: another platform
                log.info("password hashing: Argon2id by Bouncy Castle (libargon2 not loaded: {})", e.toString());
                return null;
            }
        }
    }

    static byte[] deriveNative(Argon2Advanced argon2, byte[] password, byte[] salt, int memory, int iterations,
                               int parallelism, int length) {
        return argon2.rawHashAdvanced(iterations, memory, parallelism, password, salt, null, null, length,
                Argon2Version.V13);
    }

    static byte[] deriveJava(byte[] password, byte[] salt, int memory, int iterations, int parallelism, int length) {
        Argon2Parameters params = new Argon2Parameters.Builder(Argon2Parameters.ARGON2_id)
                .withVersion(Argon2Parameters.ARGON2_VERSION_13)
                .withMemoryAsKB(memory)
                .withIterations(iterations)
                .withParallelism(parallelism)
                .withSalt(salt)
                .build();
        Argon2BytesGenerator generator = new Argon2BytesGenerator();
        generator.init(params);
        byte[] out = new byte[length];
        generator.generateBytes(password, out);
        return out;
    }
}
