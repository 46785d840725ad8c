package io.fsp.cli;

import static io.fsp.cli.FspRun.fsp;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.crypto.RecipientKey;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What {@code fsp evacuate} and {@code fsp collect} refuse before they connect anywhere. */
class EvacuateCommandTest {
    /** Password files only their owner may read: the client refuses others. */
    private static final FileAttribute<?> OWNER_ONLY = PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

    private static final String FP = "AB:" + "01:".repeat(30) + "CD";

    @TempDir
    Path dir;

    @Test
    void durationsAreDigitsAndAUnit() {
        assertEquals(Duration.ofDays(7), EvacuateCommand.duration("--retain", "7d"));
        assertEquals(Duration.ofMinutes(90), EvacuateCommand.duration("--retain", "90m"));
        assertEquals(Duration.ofSeconds(1), EvacuateCommand.duration("--deadline", "1s"));
        assertEquals(Duration.ofHours(2), EvacuateCommand.duration("--deadline", "2h"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"7", "0d", "07d", "1w", "-1h", "1.5h", "d", "9999999999d", " 1d"})
    void otherDurationsAreRefusedNamingTheOption(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> EvacuateCommand.duration("--retain", text));
        assertTrue(e.getMessage().startsWith("--retain: '" + text + "' (expected: digits and s, m, h or d"), e.getMessage());
    }

    @Test
    void trustAndPasswordFileMayComeFromTheClientConfiguration() throws Exception {
        Files.writeString(Files.createFile(dir.resolve("password"), OWNER_ONLY), "s3cret\n");
        Path conf = Files.writeString(dir.resolve("client.conf"), "trust = " + FP + "\npassword-file = password\n");
        FspRun r = fsp("evacuate", "fsp://alice@127.0.0.1:1/data", "--config", conf.toString(), "--dry-run");
        assertEquals(ExitCodes.FAILURE, r.exit(), "past the options, to the connection: " + r.err());
        assertTrue(r.err().startsWith("fsp evacuate --dry-run: "), r.err());
        FspRun none = fsp("evacuate", "fsp://alice@127.0.0.1:1/data", "--config", "none", "--dry-run");
        assertEquals(ExitCodes.USAGE, none.exit(), none.err());
        assertTrue(none.err().startsWith("fsp evacuate: --trust FINGERPRINT (as fsp-server prints it) is needed (or"
                + " trust = FINGERPRINT in the client configuration)"), none.err());
        FspRun bad = fsp("evacuate", "fsp://alice@127.0.0.1:1/data", "--config", conf.toString(), "--dry-run",
                "--replicas", "4");
        assertEquals(ExitCodes.USAGE, bad.exit(), bad.err());
        assertTrue(bad.err().startsWith("fsp evacuate: --replicas: 4 (expected: 1..3)"), bad.err());
    }

    @Test
    void anEvacuationNeedsAManifestAndARecipient() {
        FspRun r = fsp("evacuate", "fsp://alice@127.0.0.1:1/data", "--trust", FP);
        assertEquals(ExitCodes.USAGE, r.exit(), r.err());
        assertTrue(r.err().contains("--manifest FILE and --recipient PUBLIC-KEY-FILE are needed"), r.err());
    }

    @Test
    void badPriorityNamesAndUrlsAreUsageErrors() throws Exception {
        Path pub = dir.resolve("recipient.pub");
        RecipientKey.generate("").writePublic(pub, false);
        Path priority = dir.resolve("priority");
        Files.writeString(priority, "# most precious first\nsub/a.bin\n\n../etc/passwd\n");
        FspRun r = fsp("evacuate", "fsp://alice@127.0.0.1:1/data", "--trust", FP, "--manifest", dir.resolve("m").toString(),
                "--recipient", pub.toString(), "--priority", priority.toString());
        assertEquals(ExitCodes.USAGE, r.exit(), r.err());
        assertTrue(r.err().contains("line 4: name \"../etc/passwd\" is not normalised (expected: no empty, . or .. segments)"), r.err());
        FspRun withPassword = fsp("evacuate", "fsp://alice:secret@127.0.0.1:1/data", "--trust", FP, "--dry-run");
        assertEquals(ExitCodes.USAGE, withPassword.exit(), withPassword.err());
        assertTrue(withPassword.err().contains("a password in the URL"), withPassword.err());
    }

    @Test
    void anExistingManifestIsKeptUnlessForcedAndThenMovedAside() throws Exception {
        Path pub = dir.resolve("recipient.pub");
        RecipientKey.generate("").writePublic(pub, false);
        Path m = Files.writeString(dir.resolve("m"), "earlier");
        Files.writeString(dir.resolve("m.1"), "earliest");
        Files.writeString(Files.createFile(dir.resolve("password"), OWNER_ONLY), "s3cret\n");
        Path conf = Files.writeString(dir.resolve("client.conf"), "trust = " + FP + "\npassword-file = password\n");
        String[] args = {"evacuate", "fsp://alice@127.0.0.1:1/data", "--config", conf.toString(), "--manifest",
                m.toString(), "--recipient", pub.toString()};
        FspRun refused = fsp(args);
        assertEquals(ExitCodes.USAGE, refused.exit(), refused.err());
        assertTrue(refused.err().startsWith("fsp evacuate: --manifest " + m + " exists:"), refused.err());
        assertTrue(refused.err().contains("nothing was sent (expected: a new --manifest name, or --force"), refused.err());
        assertEquals("earlier", Files.readString(m));
        String[] forced = java.util.Arrays.copyOf(args, args.length + 1);
        forced[args.length] = "--force";
        FspRun r = fsp(forced);
        assertEquals(ExitCodes.FAILURE, r.exit(), "past the manifest, to the connection: " + r.err());
        assertTrue(r.err().contains("kept the earlier manifest as " + m + ".2"), r.err());
        assertEquals("earlier", Files.readString(dir.resolve("m.2")));
        assertEquals("earliest", Files.readString(dir.resolve("m.1")));
        FspRun dry = fsp("evacuate", "fsp://alice@127.0.0.1:1/data", "--config", conf.toString(), "--manifest",
                dir.resolve("m.1").toString(), "--dry-run");
        assertEquals(ExitCodes.FAILURE, dry.exit(), "a dry run writes no manifest: " + dry.err());
    }

    @Test
    void aMissingPriorityFileIsOneLineAndAUsageError() throws Exception {
        FspRun r = fsp("evacuate", "fsp://alice@127.0.0.1:1/data", "--trust", FP, "--dry-run", "--priority",
                dir.resolve("priority.txt").toString());
        assertEquals(ExitCodes.USAGE, r.exit(), r.err());
        assertEquals("fsp evacuate: --priority " + dir.resolve("priority.txt") + ": no such file (expected: a file of"
                + " names relative to PATH, one a line; leave out --priority to send in the server's order)", r.err().strip());
        FspRun unreadable = fsp("evacuate", "fsp://alice@127.0.0.1:1/data", "--trust", FP, "--dry-run", "--priority",
                dir.toString());
        assertEquals(ExitCodes.USAGE, unreadable.exit(), unreadable.err());
        assertEquals(1, unreadable.err().strip().lines().count(), unreadable.err());
        assertTrue(unreadable.err().contains("cannot be read"), unreadable.err());
    }

    @Test
    void collectRefusesVerificationOffAndAMissingIdentity() throws Exception {
        FspRun off = fsp("collect", dir.resolve("m").toString(), "-o", dir.resolve("bag").toString(), "--identity",
                dir.resolve("identity").toString(), "--verify", "off");
        assertEquals(ExitCodes.USAGE, off.exit(), off.err());
        FspRun missing = fsp("collect", dir.resolve("m").toString(), "-o", dir.resolve("bag").toString(), "--identity",
                dir.resolve("identity").toString(), "--trust-origin", FP);
        assertEquals(ExitCodes.FAILURE, missing.exit(), missing.err());
        assertTrue(missing.err().contains("identity"), missing.err());
        assertTrue(!Files.exists(dir.resolve("bag")), "nothing created");
    }

    @Test
    void collectNeedsATrustedOriginOrTheExplicitOptionAndNotBoth() {
        String[] base = {"collect", dir.resolve("m").toString(), "-o", dir.resolve("bag").toString(), "--identity",
                dir.resolve("identity").toString()};
        FspRun neither = fsp(base);
        assertEquals(ExitCodes.USAGE, neither.exit(), neither.err());
        assertTrue(neither.err().contains("--trust-origin FINGERPRINT is needed"), neither.err());
        String[] both = java.util.Arrays.copyOf(base, base.length + 3);
        both[base.length] = "--trust-origin";
        both[base.length + 1] = FP;
        both[base.length + 2] = "--no-origin-check";
        FspRun r = fsp(both);
        assertEquals(ExitCodes.USAGE, r.exit(), r.err());
        assertTrue(r.err().contains("not both"), r.err());
        assertTrue(!Files.exists(dir.resolve("bag")), "nothing created");
    }
}
