package io.fsp.cli;

import static io.fsp.cli.FspRun.fsp;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code fsp collect} reads the client configuration file as {@code fsp get} does (streams, verify, relay-timeout). */
class CollectCommandConfigTest {
    @TempDir
    Path dir;

    private FspRun collect(String... more) {
        String[] args = {"collect", dir.resolve("evacuation.sealed").toString(), "-o", dir.resolve("bag").toString(),
                "--identity", dir.resolve("identity").toString()};
        String[] all = java.util.Arrays.copyOf(args, args.length + more.length);
        System.arraycopy(more, 0, all, args.length, more.length);
        return fsp(all);
    }

    @Test
    void theFilesValuesApplyAndTheCommandLineOverridesThem() throws Exception {
        Path conf = Files.writeString(dir.resolve("client.conf"), "verify = off\nstreams = 8\n");
        FspRun fromFile = collect("--config", conf.toString());
        assertEquals(ExitCodes.USAGE, fromFile.exit(), fromFile.err());
        assertTrue(fromFile.err().startsWith("fsp collect: verify: off (expected: fiver or riva"), fromFile.err());

        // --verify riva overrides the file: the command goes on to the identity and the manifest (missing here)
        FspRun overridden = collect("--config", conf.toString(), "--verify", "riva", "--no-origin-check");
        assertEquals(ExitCodes.FAILURE, overridden.exit(), overridden.err());
        assertTrue(overridden.err().startsWith("fsp collect: " + dir.resolve("identity") + ": cannot read the identity"),
                overridden.err());
    }

    @Test
    void aBadLineIsAUsageErrorNamingFileLineAndKey() throws Exception {
        Path conf = Files.writeString(dir.resolve("client.conf"), "# defaults\nrelay-timeout = soon\n");
        FspRun r = collect("--config", conf.toString());
        assertEquals(ExitCodes.USAGE, r.exit(), r.err());
        assertTrue(r.err().startsWith("fsp collect: " + conf + ":2: relay-timeout: 'soon'"), r.err());
    }

    @Test
    void aRelayTimeoutBelowASecondIsRefused() {
        FspRun r = collect("--config", "none", "--relay-timeout", "0");
        assertEquals(ExitCodes.USAGE, r.exit(), r.err());
        assertTrue(r.err().startsWith("fsp collect: --relay-timeout: PT0S (expected: >= 1s)"), r.err());
    }
}
