package io.fsp.cli;

import java.io.PrintWriter;
import java.util.Optional;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** The transfer {@code fsp wait} and {@code fsp cancel} act on (the ID that {@code --detach} printed), and their streams. */
final class ManagedTransferId {
    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    @Parameters(index = "0", paramLabel = "ID", description = "The transfer (as --detach printed it).")
    String id;

    /** The transfer if it runs in this agent. */
    Optional<Transfers.Running> runningHere() {
        return Transfers.inThisAgent().flatMap(t -> t.running(id));
    }

    PrintWriter out() {
        return command.commandLine().getOut();
    }

    PrintWriter err() {
        return command.commandLine().getErr();
    }
}
