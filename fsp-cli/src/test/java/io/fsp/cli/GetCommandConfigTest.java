package io.fsp.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static io.fsp.cli.FspRun.fsp;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.client.collect.CollectOptions;
import io.fsp.client.verify.VerificationMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** {@code fsp get} over a client configuration file: defaults, then the file, then the command line. */
class GetCommandConfigTest {
    /** Password files only their owner may read: the client refuses others. */
    private static final FileAttribute<?> OWNER_ONLY = PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

    private static final String FINGERPRINT = "AB:" + "00:".repeat(30) + "CD";
    private static final String URL = "fsp://alice@127.0.0.1:1/data";

    @TempDir
    Path dir;

    /** What {@code fsp get ARGS} would collect with, without connecting. */
    private static CollectOptions options(String... args) throws Exception {
        GetCommand get = new GetCommand();
        new CommandLine(get).parseArgs(args);
        return get.options();
    }

    @Test
    void theFileGivesDefaultsAndTheCommandLineOverridesThem() throws Exception {
        Files.writeString(Files.createFile(dir.resolve("password"), OWNER_ONLY), "s3cret\n");
        Path conf = Files.writeString(dir.resolve("client.conf"), """
                trust = %s
                password-file = password
                block-size = 4M
                replicas = 2
                strategy = cyclic
                streams = 8
                verify = riva
                relay-timeout = 30s
                include-direct = true
                """.formatted(FINGERPRINT));
        CollectOptions fromFile = options(URL, "-o", dir.resolve("out").toString(), "--config", conf.toString());
        assertArrayEquals("s3cret".toCharArray(), fromFile.password(), "password-file relative to the file");
        assertEquals(List.of("block-size=4194304", "strategy=cyclic", "replicas=2"), fromFile.fspOptions().words());
        assertEquals(8, fromFile.streams());
        assertEquals(VerificationMode.RIVA, fromFile.verify());
        assertEquals(Duration.ofSeconds(30), fromFile.relayTimeout());
        assertTrue(fromFile.includeDirect());

        CollectOptions overridden = options(URL, "-o", dir.resolve("out").toString(), "--config", conf.toString(),
                "--streams", "2", "--verify", "off", "--relay-timeout", "5", "--no-include-direct", "--replicas", "3",
                "--block-size", "1M");
        assertEquals(2, overridden.streams());
        assertEquals(VerificationMode.OFF, overridden.verify());
        assertEquals(Duration.ofSeconds(5), overridden.relayTimeout(), "a bare number is seconds, as it always was");
        assertTrue(!overridden.includeDirect());
        assertEquals(List.of("block-size=1048576", "strategy=cyclic", "replicas=3"), overridden.fspOptions().words());
    }

    @Test
    void withoutAFileTheDefaultsAreAsBefore() throws Exception {
        Files.writeString(Files.createFile(dir.resolve("password"), OWNER_ONLY), "pw\n");
        CollectOptions o = options(URL, "-o", dir.resolve("out").toString(), "--config", "none", "--trust", FINGERPRINT,
                "--password-file", dir.resolve("password").toString());
        assertEquals(List.of(), o.fspOptions().words());
        assertEquals(4, o.streams());
        assertEquals(VerificationMode.FIVER, o.verify());
        assertEquals(Duration.ofSeconds(10), o.relayTimeout());
        assertTrue(!o.includeDirect() && o.directWrites() && o.overlap());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "stream = 8|2: unknown key 'stream' (expected one of: trust, password-file,",
        "streams = 0|2: streams: 0 (expected: 1..64)",
        "verify = maybe|2: verify: 'maybe' (expected one of: fiver, riva, off)",
        "relay-timeout = soon|2: relay-timeout: 'soon' (expected: a duration",
        "trust = ABCD|2: trust: fingerprint 'ABCD': 4 hex digits",
        "block-size = 2X|2: block-size: '2X' (expected: a size",
        "block-size = 1k|2: block-size: 1024 (expected: auto or 4096..16777216)",
        "replicas = 4|2: replicas: 4 (expected: 1..3)",
        "compression = 20|2: compression: 20 (expected: off or 1..19)",
        "password = secret|2: unknown key 'password'",
        "insecure = true|2: unknown key 'insecure'",
    })
    void aBadLineIsAUsageErrorNamingFileLineAndKey(String line, String message) throws Exception {
        Path conf = Files.writeString(dir.resolve("client.conf"), "# defaults\n" + line + "\n");
        FspRun r = fsp("get", URL, "-o", dir.resolve("out").toString(), "--config", conf.toString(), "--trust", FINGERPRINT);
        assertEquals(ExitCodes.USAGE, r.exit(), r.err());
        assertTrue(r.err().startsWith("fsp get: " + conf + ":" + message), r.err());
    }

    @Test
    void aNamedFileThatIsMissingIsAUsageError() {
        FspRun r = fsp("get", URL, "-o", dir.resolve("out").toString(), "--config", dir.resolve("nowhere.conf").toString());
        assertEquals(ExitCodes.USAGE, r.exit(), r.err());
        assertTrue(r.err().startsWith("fsp get: " + dir.resolve("nowhere.conf") + ": cannot read"), r.err());
    }

    @Test
    void withoutTrustAnywhereTheMessageSaysWhereToPutIt() {
        FspRun r = fsp("get", URL, "-o", dir.resolve("out").toString(), "--config", "none");
        assertEquals(ExitCodes.USAGE, r.exit(), r.err());
        assertTrue(r.err().startsWith("fsp get: --trust FINGERPRINT (as fsp-server prints it) or --insecure is needed"),
                r.err());
        assertTrue(r.err().contains("trust = FINGERPRINT"), r.err());
    }

    /** The relay query is checked as the server checks it (one type, the server's texts), before anything connects. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--near-sender|0|near-sender: 0 (expected: > 0 and <= 60000 ms)",
        "--near-client|12,5|near-client: 12,5 (expected: milliseconds, e.g. 40 or 12.5)",
        "--meridian-entry|relay.example:7400|meridian-entry: relay.example:7400 (expected: a literal IP address)",
    })
    void aBadRelayQueryIsAUsageErrorWithTheServersText(String option, String value, String message) throws Exception {
        Path password = Files.writeString(Files.createFile(dir.resolve("password"), OWNER_ONLY), "pw\n");
        Map<String, String> query = new LinkedHashMap<>(Map.of("--relays", "2", "--near-sender", "40", "--near-client", "40"));
        query.put(option, value);
        List<String> args = new ArrayList<>(List.of("get", URL, "-o", dir.resolve("out").toString(), "--config", "none",
                "--trust", FINGERPRINT, "--password-file", password.toString()));
        query.forEach((k, v) -> args.addAll(List.of(k, v)));
        FspRun r = fsp(args.toArray(String[]::new));
        assertEquals(ExitCodes.USAGE, r.exit(), r.err());
        assertTrue(r.err().startsWith("fsp get: " + message), r.err());
    }
}
