package io.fsp.cli;

import io.fsp.client.control.FspUrl;
import io.fsp.client.transfer.ThirdPartyTransfer;
import io.fsp.extension.FspOption;
import io.fsp.extension.FspOptions;
import io.fsp.tls.Fingerprint;
import io.fsp.tls.PinnedTrustManager;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import javax.net.ssl.X509TrustManager;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code fsp transfer fsp://alice@A/PATH fsp://bob@B/PATH}: a third-party transfer (docs/protocol.md §1, "FCOL"):
 * server B collects PATH from server A's relays and verifies it on its disk; this client only passes A's
 * announcements on and shows B's progress.
 */
@Command(name = "transfer", mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
        description = {"Has the destination server collect a file or directory from the source server's relays"
                + " (a third-party transfer): the source stripes it to its relays (relays only), its key, token and block"
                + " digests go over the two TLS control channels to the destination, which fetches every block, writes it"
                + " inside the destination user's root and verifies it on its disk. The data never passes through this"
                + " client. Exit 0 only once the destination reports every file verified.",
                "Passwords: the source's from --password-file, else $FSP_PASSWORD; the destination's from"
                        + " --dest-password-file, else $FSP_DEST_PASSWORD; else each is asked on the terminal."},
        exitCodeListHeading = ExitCodes.HEADING, exitCodeList = {ExitCodes.TRANSFERRED_HELP, ExitCodes.FAILURE_HELP,
                ExitCodes.USAGE_HELP, ExitCodes.TRANSFER_UNVERIFIED_HELP, ExitCodes.INTERNAL_HELP})
public final class TransferCommand implements Callable<Integer> {
    static final String DESTINATION_ENVIRONMENT = "FSP_DEST_PASSWORD";

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "fsp://USER@A:PORT/PATH", description = "What to transfer (the source).")
    String source;

    @Parameters(index = "1", paramLabel = "fsp://USER@B:PORT/PATH",
            description = "Where it goes on the destination server: a directory's entries under PATH (made if missing),"
                    + " a single file as PATH.")
    String destination;

    @Option(names = "--trust", paramLabel = "FINGERPRINT", required = true, arity = "1",
            description = "The certificate fingerprint of the source server, then (given again) of the destination;"
                    + " once: both servers have that certificate.")
    List<String> trust;

    @Option(names = "--password-file", paramLabel = "FILE", description = "The source account's password on the first line.")
    Path passwordFile;

    @Option(names = "--dest-password-file", paramLabel = "FILE",
            description = "The destination account's password on the first line.")
    Path destPasswordFile;

    @Option(names = "--replicas", paramLabel = "N", description = "Store each block on N relays, 1..3 (FSPO replicas=N).")
    Integer replicas;

    @Mixin
    BlockSizeOption blockSize;

    @Mixin
    OutputOption output;

    @Override
    public Integer call() throws Exception {
        return output.run(spec, this::transfer);
    }

    private int transfer(PrintWriter out, PrintWriter err) throws Exception {
        ThirdPartyTransfer.Options options;
        try {
            options = options();
        } catch (IllegalArgumentException e) {
            err.println("fsp transfer: " + e.getMessage());
            return ExitCodes.USAGE;
        }
        ThirdPartyTransfer transfer = new ThirdPartyTransfer(options);
        Invocation.current().watch().progress(transfer::bytesCollected, transfer::totalBytes);
        ProgressView progress = output.progress() ? new ProgressView(transfer::bytesCollected, transfer::totalBytes,
                Map::of, out) : null;
        ThirdPartyTransfer.Result result;
        try {
            result = transfer.run();
        } catch (IOException e) {
            err.println("fsp transfer: " + e.getMessage());
            return ExitCodes.FAILURE;
        } finally {
            if (progress != null) {
                progress.close();
            }
        }
        out.println(output.json ? result.toJson() : result.toText());
        if (result.verified()) {
            return ExitCodes.OK;
        }
        err.println("fsp transfer: " + result.error());
        // 4xx: the destination could not verify every block (a relay failed or lied); 5xx: refused for good
        return result.code() >= 400 && result.code() < 500 ? ExitCodes.VERIFICATION_FAILED : ExitCodes.FAILURE;
    }

    private ThirdPartyTransfer.Options options() throws IOException {
        FspUrl a = FspUrl.parse(source);
        FspUrl b = FspUrl.parse(destination);
        if (trust.size() > 2) {
            throw new IllegalArgumentException("--trust: given " + trust.size() + " times (expected: once for both servers,"
                    + " or the source's then the destination's)");
        }
        X509TrustManager trustA = pin(trust.get(0));
        X509TrustManager trustB = pin(trust.get(trust.size() - 1));
        FspOptions fsp = FspFlags.withText(FspFlags.with(FspOptions.NONE, FspOption.REPLICAS, replicas),
                FspOption.BLOCK_SIZE, blockSize.value);
        char[] passwordA = PasswordOption.password(Optional.ofNullable(passwordFile), Invocation.current().env(PasswordOption.ENVIRONMENT),
                PasswordOption.terminal(), a.user() + "@" + a.host());
        char[] passwordB = PasswordOption.password(Optional.ofNullable(destPasswordFile), Invocation.current().env(DESTINATION_ENVIRONMENT),
                PasswordOption.terminal(), b.user() + "@" + b.host());
        return new ThirdPartyTransfer.Options(a, passwordA, trustA, b, passwordB, trustB, fsp, Duration.ofSeconds(10));
    }

    private static X509TrustManager pin(String fingerprint) {
        return PinnedTrustManager.of(Set.of(Fingerprint.parse(fingerprint)));
    }
}
