package io.fsp.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

@Timeout(60)
class MeridianSimCommandTest {
    private record Run(int exit, String out, String err) { }

    private static Run fsp(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new BenchCli());
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return new Run(cli.execute(args), out.toString(), err.toString());
    }

    @Test
    void meridianSimPrintsFiguresForASyntheticMatrix() {
        Run run = fsp("meridian-sim", "--synthetic", "60", "--queries", "20", "--seed", "3", "--json");
        assertEquals(0, run.exit(), run.err());
        assertTrue(run.out().startsWith("{\"matrix\":\"synthetic-60\",\"members\":48"), run.out());
        assertTrue(run.out().contains("\"mcq\":{\"queries\":20"), run.out());
        Run rough = fsp("meridian-sim", "--synthetic", "60", "--rough", "--queries", "20", "--seed", "3", "--json");
        assertEquals(0, rough.exit(), rough.err());
        assertTrue(rough.out().startsWith("{\"matrix\":\"rough-60\",\"members\":48"), rough.out());
        assertEquals(2, fsp("meridian-sim").exit());
        assertEquals(2, fsp("meridian-sim", "--synthetic", "60", "--beta", "2").exit());
    }
}
