package io.fsp.cli;

import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code fsp wait ID}: waits for a managed transfer, prints what it printed, and exits with its exit code. */
@Command(name = "wait", mixinStandardHelpOptions = true, usageHelpAutoWidth = true,
        description = "Waits for a managed transfer (started with --detach) to end, prints what it printed, and exits"
                + " with its exit code.",
        exitCodeListHeading = ExitCodes.HEADING, exitCodeList = {"N:the transfer's own exit code (0: done and verified)",
                "1:no such transfer, or it was interrupted (its agent went away); fsp status says how to resume it"})
final class WaitCommand implements Callable<Integer> {
    @Mixin
    ManagedTransferId transfer;

    @Override
    public Integer call() throws Exception {
        Path dir = Transfers.directory(Invocation.current().agentDirectory());
        Optional<Transfers.Running> live = transfer.runningHere();
        if (live.isPresent()) {
            live.get().ended.await();
        }
        Optional<Transfers.Record> r = Transfers.record(dir, transfer.id);
        if (r.isEmpty()) {
            transfer.err().println("fsp wait: no transfer " + transfer.id + " (see fsp status)");
            return ExitCodes.FAILURE;
        }
        transfer.out().print(Transfers.output(dir, transfer.id));
        transfer.out().flush();
        if (r.get().exit() == null) {
            transfer.err().println("fsp wait: transfer " + transfer.id + " is " + r.get().state()
                    + (r.get().state().equals("running") ? " in another agent" : "; to resume: cd " + r.get().cwd()
                    + " && " + r.get().commandLine() + " --detach"));
            return ExitCodes.FAILURE;
        }
        return r.get().exit();
    }
}
