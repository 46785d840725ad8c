package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.cli.FspCli;
import io.fsp.it.harness.Distribution;
import io.fsp.it.harness.ExternalTool;
import io.fsp.it.harness.Transcript;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The bash and zsh completion and the man pages of the distribution archive (generated at build time from the
 * programs' picocli model, build/ShellDocs.java), used as a shell and {@code man} use them.
 */
@Timeout(120)
class ShellCompletionAndManPagesIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final List<String> PROGRAMS = List.of("fsp", "fsp-server", "fsp-relay");

    @TempDir
    static Path dir;
    static Path home;
    final Transcript transcript = new Transcript();

    @BeforeAll
    static void unpack() throws Exception {
        home = Distribution.unpack(dir.resolve("opt"));
    }

    @Test
    void bashCompletesSubcommandsAndOptions() throws Exception {
        assertEquals(List.of("get"), complete("fsp", "ge"));
        assertEquals(List.of("--checksum"), complete("fsp", "get", "--chec"));
        List<String> options = complete("fsp", "get", "--");
        assertTrue(options.containsAll(List.of("--output", "--trust", "--verify", "--relays")), options.toString());
        assertEquals(List.of("fingerprint"), complete("fsp-relay", "fi"));
        assertEquals(List.of("hash-password"), complete("fsp-server", "ha"));
        assertTrue(complete("fsp-relay", "--tr").contains("--trust-server"), "fsp-relay --tr");
    }

    /**
     * The zsh file is picocli's script behind bashcompinit: compinit's autoload of it answers the first completion,
     * and its binding every later one. Driving zsh's line editor needs a terminal, so the file is loaded as compinit
     * would, with {@code words} and {@code CURRENT} set as the completion system sets them, and {@code compadd}
     * printing what it would offer (the candidates that start with the word, as zsh matches them).
     */
    @Test
    void zshCompletesThroughBashcompinit() throws Exception {
        Path functions = home.resolve("share/zsh/site-functions");
        for (String program : PROGRAMS) {
            String text = Files.readString(functions.resolve("_" + program));
            assertTrue(text.startsWith("#compdef " + program + "\n"), "_" + program + ": " + text.lines().findFirst());
        }
        Assumptions.assumeTrue(ExternalTool.find("zsh").isPresent(), "zsh is not installed: not run in zsh");
        String script = "autoload -U compinit && compinit -u -D\n"
                + "compadd() { while (( $# )) && [[ $1 != - ]]; do shift; done; shift;"
                + " print -l -- ${(M)@:#${words[CURRENT]}*}; }\n"
                + "words=(fsp ge); CURRENT=2\n"
                + "source " + functions.resolve("_fsp") + "\n"
                + "print -- ---\n"
                + "words=(fsp get --chec); CURRENT=3\n"
                + "_bash_complete -F _complete_fsp\n";
        ExternalTool.Result r = ExternalTool.require("zsh", "zsh", transcript)
                .run(TIMEOUT, "-f", "-c", script).assertSuccess();
        assertEquals(List.of("get", "---", "--checksum"), r.stdout().lines().filter(l -> !l.isEmpty()).toList(),
                r.describe());
    }

    @Test
    void everyProgramAndSubcommandHasAManPage() throws Exception {
        Set<String> expected = new TreeSet<>();
        pages(FspCli.commandLine(), "fsp", expected);
        pages(new CommandLine(instance("io.fsp.server.ServerCommand")), "fsp-server", expected);
        pages(new CommandLine(instance("io.fsp.relay.RelayCommand")), "fsp-relay", expected);
        assertTrue(expected.containsAll(Set.of("fsp.1", "fsp-get.1", "fsp-relay-fingerprint.1")), expected.toString());
        Set<String> shipped = new TreeSet<>();
        try (Stream<Path> files = Files.list(home.resolve("share/man/man1"))) {
            files.forEach(f -> shipped.add(f.getFileName().toString()));
        }
        assertEquals(expected, shipped);
    }

    /** {@code fsp-get(1)} formatted by groff, as man shows it: every option of {@code fsp get} is in it. */
    @Test
    void manPageOfGetShowsItsOptions() throws Exception {
        ExternalTool.Result page = ExternalTool.require("groff", "groff-base", transcript).run(TIMEOUT, "-man",
                "-Tascii", "-P-cbou", home.resolve("share/man/man1/fsp-get.1").toString()).assertSuccess();
        String text = page.stdout();
        assertTrue(text.contains("NAME") && text.contains("fsp-get - "), page.describe());
        CommandLine get = FspCli.commandLine("get").getSubcommands().get("get");
        for (OptionSpec o : get.getCommandSpec().options()) {
            String name = o.longestName();
            assertTrue(text.contains(name) || o.negatable() && text.contains("--[no-]" + name.substring(2)),
                    "fsp-get(1) names " + name + ":\n" + text);
        }
        assertTrue(text.contains("--checksum=ALG"), text);
    }

    /** What bash's programmable completion offers for the last of {@code words}, the completion script sourced. */
    private List<String> complete(String program, String... words) throws Exception {
        List<String> line = new ArrayList<>(List.of(program));
        line.addAll(List.of(words));
        String function = "_complete_" + program;
        String script = "source " + home.resolve("share/bash-completion/completions").resolve(program) + "\n"
                + "COMP_WORDS=(" + String.join(" ", line) + "); COMP_CWORD=" + words.length + "\n"
                + "COMP_LINE='" + String.join(" ", line) + "'; COMP_POINT=${#COMP_LINE}\n"
                + function + "\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n";
        ExternalTool.Result r = ExternalTool.require("bash", "bash", transcript)
                .run(TIMEOUT, "--norc", "--noprofile", "-c", script).assertSuccess();
        return r.stdout().lines().map(String::strip).filter(s -> !s.isEmpty()).sorted().toList();
    }

    /** The page names of {@code command} and its subcommands, as picocli names them: fsp-get.1. */
    private static void pages(CommandLine command, String name, Set<String> into) {
        into.add(name + ".1");
        for (Map.Entry<String, CommandLine> sub : command.getSubcommands().entrySet()) {
            if (sub.getKey().equals(sub.getValue().getCommandName())) { // not an alias
                pages(sub.getValue(), name + "-" + sub.getKey(), into);
            }
        }
    }

    private static Object instance(String className) throws ReflectiveOperationException {
        var c = Class.forName(className).getDeclaredConstructor();
        c.setAccessible(true);
        return c.newInstance();
    }
}
