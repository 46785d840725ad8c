package io.fsp.extension;

import io.fsp.token.TransferId;
import java.util.ArrayList;
import java.util.List;

/**
 * The argument of one FGET, {@code <transfer-id> <seq>[,<seq>…]}: blocks of one of the session's recent FRET
 * transfers that the client fetches again from the origin (docs/protocol.md §1, "FSP extension"). At most
 * {@link ExtensionLimits#MAX_FGET_BLOCKS} blocks; whether each lies inside the transfer's plan only the server
 * knows ({@link #requireInside}).
 */
public record FgetRequest(TransferId transfer, List<Long> blocks) {
    /** The command's syntax, as a reply to a line without both fields names it. */
    public static final String SYNTAX = "FGET <transfer-id> <seq>[,<seq>...]";
    /** Most blocks one FGET names. */
    public static final int MAX_BLOCKS = ExtensionLimits.MAX_FGET_BLOCKS;

    public FgetRequest {
        blocks = List.copyOf(blocks);
        if (blocks.isEmpty() || blocks.size() > MAX_BLOCKS) {
            throw new IllegalArgumentException("FGET: " + blocks.size() + " blocks (expected: 1.." + MAX_BLOCKS + ")");
        }
    }

    /** The FGET requests that fetch {@code blocks}, as few as the per-command limit allows. */
    public static List<FgetRequest> of(TransferId transfer, List<Long> blocks) {
        List<FgetRequest> out = new ArrayList<>();
        for (int i = 0; i < blocks.size(); i += MAX_BLOCKS) {
            out.add(new FgetRequest(transfer, blocks.subList(i, Math.min(blocks.size(), i + MAX_BLOCKS))));
        }
        return out;
    }

    /** The argument as sent: the transfer id and the sequence numbers, comma-separated, in order. */
    public String format() {
        StringBuilder sb = new StringBuilder(transfer.toString()).append(' ');
        for (int i = 0; i < blocks.size(); i++) {
            sb.append(i == 0 ? "" : ",").append(blocks.get(i));
        }
        return sb.toString();
    }

    /**
     * Reads an FGET argument; throws {@link IllegalArgumentException} with the text the server answers (501): the
     * syntax when a field is missing, else the bad transfer id, the count over the limit or the bad number.
     */
    public static FgetRequest parse(String argument) {
        String[] words = argument.trim().split("\\s+");
        if (words.length != 2) {
            throw new IllegalArgumentException("FGET: missing argument (expected: " + SYNTAX + ")");
        }
        TransferId id = TransferId.parse(words[0]);
        String[] list = words[1].split(",", MAX_BLOCKS + 1); // never more than one word past the limit
        if (list.length > MAX_BLOCKS) {
            throw new IllegalArgumentException("blocks: more than " + MAX_BLOCKS + " (expected: <= " + MAX_BLOCKS + ")");
        }
        List<Long> seqs = new ArrayList<>(list.length);
        for (String s : list) {
            seqs.add(Long.parseLong(s));
        }
        return new FgetRequest(id, seqs);
    }

    /** Throws {@link IllegalArgumentException} naming the first block outside a plan of {@code count} blocks. */
    public void requireInside(long count) {
        for (long seq : blocks) {
            if (seq < 0 || seq >= count) {
                throw new IllegalArgumentException("block: " + seq + " (expected: 0.." + (count - 1) + ")");
            }
        }
    }
}
