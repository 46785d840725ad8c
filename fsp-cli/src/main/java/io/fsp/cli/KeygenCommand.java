package io.fsp.cli;

import io.fsp.crypto.RecipientKey;
import java.io.PrintWriter;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code fsp keygen -o DIR}: the safe site's recipient key pair for evacuation. The public key ({@code
 * DIR/recipient.pub}, one line, also printed) is given to whoever evacuates; evacuation manifests are sealed to
 * it. The identity ({@code DIR/identity}, readable by its owner only) opens them and stays at the safe site.
 */
@Command(name = "keygen", mixinStandardHelpOptions = true,
        description = "Create a recipient key pair: evacuation manifests are sealed to its public key and opened with its identity.")
public final class KeygenCommand implements Callable<Integer> {
    static final String IDENTITY = "identity";
    static final String PUBLIC = "recipient.pub";

    @Spec
    CommandSpec spec;

    @Option(names = {"-o", "--output"}, required = true, paramLabel = "DIR",
            description = "Directory for 'identity' (private, mode 600) and 'recipient.pub' (created if missing).")
    Path dir;

    @Option(names = "--comment", defaultValue = "", description = "Text after the public key, to tell keys apart (e.g. a site name).")
    String comment;

    @Option(names = "--force", description = "Replace existing key files (the old identity can no longer open what was sealed to it).")
    boolean force;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (comment.contains("\n") || comment.contains("\r")) {
            err.println("fsp keygen: --comment must be one line");
            return ExitCodes.USAGE;
        }
        Path identity = dir.resolve(IDENTITY);
        Path pub = dir.resolve(PUBLIC);
        if (!force && (Files.exists(identity) || Files.exists(pub))) {
            err.println("fsp keygen: " + (Files.exists(identity) ? identity : pub) + " exists; keeping it (--force replaces it,"
                    + " and manifests sealed to the old key can then no longer be opened)");
            return ExitCodes.FAILURE;
        }
        RecipientKey key = RecipientKey.generate(comment);
        try {
            key.writeIdentity(identity, force);
            key.writePublic(pub, force);
        } catch (FileAlreadyExistsException e) {
            err.println("fsp keygen: " + e.getFile() + " appeared meanwhile; keeping it");
            return ExitCodes.FAILURE;
        }
        out.println(key.publicLine());
        err.println("fsp keygen: identity " + identity + " (keep it at the safe site; only its owner may read it)");
        err.println("fsp keygen: public key " + pub + ", fingerprint " + key.fingerprint());
        out.flush();
        return ExitCodes.OK;
    }
}
