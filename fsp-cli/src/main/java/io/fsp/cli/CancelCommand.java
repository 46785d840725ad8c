package io.fsp.cli;

import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code fsp cancel ID}: stops a managed transfer; its journal stays, so the same command resumes it. */
@Command(name = "cancel", mixinStandardHelpOptions = true, usageHelpAutoWidth = true,
        description = "Stops a managed transfer (started with --detach). Its journal stays: the same command run again"
                + " resumes it without fetching its verified blocks again.",
        exitCodeListHeading = ExitCodes.HEADING, exitCodeList = {"0:cancelled", "1:no such transfer runs in this agent"})
final class CancelCommand implements Callable<Integer> {
    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "ID", description = "The transfer (as --detach printed it).")
    String id;

    @Override
    public Integer call() throws Exception {
        Optional<Transfers.Running> live = Transfers.inThisAgent().flatMap(t -> t.running(id));
        if (live.isEmpty()) {
            spec.commandLine().getErr().println("fsp cancel: transfer " + id + " is not running here (see fsp status)");
            return ExitCodes.FAILURE;
        }
        live.get().thread.interrupt();
        if (!live.get().ended.await(30, TimeUnit.SECONDS)) {
            spec.commandLine().getErr().println("fsp cancel: transfer " + id + " is still winding down");
            return ExitCodes.FAILURE;
        }
        spec.commandLine().getOut().println("fsp cancel: transfer " + id + " cancelled; its journal stays for a rerun");
        return ExitCodes.OK;
    }
}
