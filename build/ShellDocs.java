import io.fsp.cli.FspCli;
import java.io.File;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.codegen.docgen.manpage.ManPageGenerator;

/**
 * Writes what shells and {@code man} expect of the shipped programs, from the same picocli model their launchers
 * run, so that neither can drift from the options:
 *
 * <ul>
 *   <li>{@code OUT/share/bash-completion/completions/PROGRAM}: picocli's completion script;
 *   <li>{@code OUT/share/zsh/site-functions/_PROGRAM}: the same script for zsh, which runs it through
 *       {@code bashcompinit};
 *   <li>{@code OUT/man/PROGRAM[-SUBCOMMAND].adoc}: picocli's man pages in AsciiDoc, one per program and per
 *       subcommand, which the build turns into troff with Asciidoctor (fsp-dist's pom).
 * </ul>
 *
 * <p>Run by Maven (exec-maven-plugin in fsp-dist) as a single-file program over the distribution's class path and
 * picocli-codegen, which ships nowhere: {@code java -cp 'target/lib/*:CODEGEN' build/ShellDocs.java OUT}.
 */
public class ShellDocs {
    public static void main(String[] args) throws Exception {
        Path out = Path.of(args[0]);
        Map<String, CommandLine> programs = new LinkedHashMap<>();
        programs.put("fsp", FspCli.commandLine()); // every subcommand: the launcher adds only the one a run names
        programs.put("fsp-server", new CommandLine(instance("io.fsp.server.ServerCommand")));
        programs.put("fsp-relay", new CommandLine(instance("io.fsp.relay.RelayCommand")));

        Path bash = Files.createDirectories(out.resolve("share/bash-completion/completions"));
        Path zsh = Files.createDirectories(out.resolve("share/zsh/site-functions"));
        Path man = Files.createDirectories(out.resolve("man"));
        for (Map.Entry<String, CommandLine> p : programs.entrySet()) {
            String name = p.getKey();
            String script = AutoComplete.bash(name, p.getValue());
            Files.writeString(bash.resolve(name), script);
            Files.writeString(zsh.resolve("_" + name), zsh(name, script));
            // one line per synopsis: picocli's wrapping at the usage width splits its AsciiDoc markup
            unwrapped(p.getValue());
            // no templates directory: the pages are the model as it is
            int status = ManPageGenerator.generateManPage(man.toFile(), null, new boolean[0], false,
                    p.getValue().getCommandSpec());
            if (status != 0) {
                throw new IOException("man pages of " + name + ": status " + status);
            }
        }
        try (Stream<Path> pages = Files.list(man)) {
            for (Path page : pages.toList()) {
                Files.writeString(page, bracketsEscaped(Files.readString(page)));
            }
        }
    }

    private static final Pattern PARAM_LABEL = Pattern.compile("\\*=_([^_\n]*)_");

    /**
     * Option labels such as {@code IP:PORT[=FINGERPRINT]} with their brackets as AsciiDoc's attribute references:
     * picocli writes them as they are, and Asciidoctor reads {@code [=…]} in italics as markup.
     */
    static String bracketsEscaped(String adoc) {
        return PARAM_LABEL.matcher(adoc).replaceAll(m -> Matcher.quoteReplacement("*=_"
                + m.group(1).replace("[", "{startsb}").replace("]", "{endsb}") + "_"));
    }

    /**
     * picocli's script as a file of zsh's {@code fpath}, which compinit autoloads at the first completion of
     * {@code name}. The script runs in zsh too: it loads bashcompinit and binds its bash function through it (which
     * then answers every later completion); the last line answers this first one.
     */
    static String zsh(String name, String bash) {
        String function = "_complete_" + name;
        if (!bash.contains("complete -F " + function + " ") || !bash.contains("bashcompinit")) {
            throw new IllegalStateException(name + ": picocli's script no longer binds " + function + " in zsh");
        }
        return "#compdef " + name + "\n" + bash + "\n_bash_complete -F " + function + "\n";
    }

    static void unwrapped(CommandLine command) {
        command.getCommandSpec().usageMessage().autoWidth(false).width(1000);
        command.getSubcommands().values().forEach(ShellDocs::unwrapped);
    }

    /** The main class's command object (its constructor need not be public). */
    static Object instance(String className) throws ReflectiveOperationException {
        Constructor<?> c = Class.forName(className).getDeclaredConstructor();
        c.setAccessible(true);
        return c.newInstance();
    }
}
