package io.fsp.cli;

import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code fsp cancel ID}: stops a managed transfer; its journal stays, so the same command resumes it. */
@Command(name = "cancel", mixinStandardHelpOptions = true, usageHelpAutoWidth = true,
        description = "Stops a managed transfer (started with --detach). Its journal stays: the same command run again"
                + " resumes it without fetching its verified blocks again.",
        exitCodeListHeading = ExitCodes.HEADING, exitCodeList = {"0:cancelled", "1:no such transfer runs in this agent"})
final class CancelCommand implements Callable<Integer> {
    @Mixin
    ManagedTransferId transfer;

    @Override
    public Integer call() throws Exception {
        Optional<Transfers.Running> live = transfer.runningHere();
        if (live.isEmpty()) {
            transfer.err().println("fsp cancel: transfer " + transfer.id + " is not running here (see fsp status)");
            return ExitCodes.FAILURE;
        }
        live.get().thread.interrupt();
        if (!live.get().ended.await(30, TimeUnit.SECONDS)) {
            transfer.err().println("fsp cancel: transfer " + transfer.id + " is still winding down");
            return ExitCodes.FAILURE;
        }
        transfer.out().println("fsp cancel: transfer " + transfer.id + " cancelled; its journal stays for a rerun");
        return ExitCodes.OK;
    }
}
