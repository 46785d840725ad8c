package io.fsp.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.program.ExitCode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code fsp-server invite} and {@code fsp-server relays} on a state directory, without a server. */
class InviteCommandTest {
    @TempDir
    Path state;

    private record Run(int exit, String out, String err) {
    }

    private Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = new CommandLine(new ServerCommand()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
                .execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void issuesListsAndRevokes() {
        Run issued = run("invite", "--state-dir", state.toString(), "--expires", "30m");
        assertEquals(ExitCode.OK, issued.exit(), issued.err());
        String code = issued.out().strip();
        assertTrue(code.matches("[A-Z2-7]{4}(-[A-Z2-7]{4}){3}"), code);
        String id = code.substring(0, 4);
        assertTrue(issued.err().contains("fsp-relay join " + code), issued.err());
        assertTrue(run("invite", "--state-dir", state.toString(), "--list").out().contains(id + "   open"));
        Run revoked = run("invite", "--state-dir", state.toString(), "--revoke", id.toLowerCase(java.util.Locale.ROOT));
        assertEquals("invite " + id + " revoked\n", revoked.out());
        assertTrue(run("invite", "--state-dir", state.toString(), "--list").out().contains(id + "   revoked"));
        Run unknown = run("invite", "--state-dir", state.toString(), "--revoke", "ZZZZ");
        assertEquals(ExitCode.FAILURE, unknown.exit());
        assertTrue(unknown.err().contains("no invite ZZZZ"), unknown.err());
    }

    @Test
    void refusesABadExpiryAndAnUnknownRelay() {
        Run bad = run("invite", "--state-dir", state.toString(), "--expires", "soon");
        assertEquals(ExitCode.USAGE, bad.exit());
        assertTrue(bad.err().startsWith("fsp-server invite: --expires"), bad.err());
        assertEquals(ExitCode.USAGE, run("invite", "--state-dir", state.toString(), "--expires", "0s").exit());
        Run none = run("relays", "remove", "127.0.0.1:7001", "--state-dir", state.toString());
        assertEquals(ExitCode.FAILURE, none.exit());
        assertTrue(none.err().contains("no joined relay at 127.0.0.1:7001"), none.err());
        assertEquals(ExitCode.USAGE, run("relays", "drop", "--state-dir", state.toString()).exit());
        assertEquals("", run("relays", "list", "--state-dir", state.toString()).out());
    }
}
