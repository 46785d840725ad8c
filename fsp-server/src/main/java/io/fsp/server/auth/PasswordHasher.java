package io.fsp.server.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bouncycastle.crypto.generators.Argon2BytesGenerator;
import org.bouncycastle.crypto.params.Argon2Parameters;

/**
 * Argon2id password hashes (RFC 9106) in the PHC string form that the {@code argon2} tool prints:
 * {@code $argon2id$v=19$m=19456,t=2,p=1$SALT$HASH} (unpadded Base64). The default cost is OWASP's
 * recommendation (19 MiB, 2 passes): memory-hard, yet a login costs tens of milliseconds.
 */
public final class PasswordHasher {
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

    /** A new hash of {@code password} with a fresh random salt and the default cost. */
    /**
     * Hashes a throw-away password twice on a low-priority daemon thread, so that the JIT has compiled Argon2
     * before the first login: interpreted, the first verification costs several times a compiled one, and the
     * first client of a fresh server would wait for it.
     */
    public static void warmUpInBackground() {
        Thread t = new Thread(() -> {
            for (int i = 0; i < 2; i++) {
                verify(hash("warm-up"), "warm-up");
            }
        }, "argon2-warm-up");
        t.setDaemon(true);
        t.setPriority(Thread.MIN_PRIORITY);
        t.start();
    }

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
        generator.generateBytes(password.getBytes(StandardCharsets.UTF_8), out);
        return out;
    }
}
