package io.fsp.extension;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.fsp.token.TransferId;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class FgetRequestTest {
    private static final TransferId ID = new TransferId(7);

    @Test
    void formatsAndParsesBack() {
        FgetRequest r = new FgetRequest(ID, List.of(3L, 1L, 4L));
        assertEquals("0000000000000007 3,1,4", r.format());
        assertEquals(r, FgetRequest.parse(r.format()));
        assertEquals(r, FgetRequest.parse("  0000000000000007   3,1,4 "), "blanks around and between the fields");
    }

    @Test
    void splitsALongListAtTheLimit() {
        List<Long> seqs = LongStream.range(0, 2 * FgetRequest.MAX_BLOCKS + 1).boxed().toList();
        List<FgetRequest> requests = FgetRequest.of(ID, seqs);
        assertEquals(List.of(FgetRequest.MAX_BLOCKS, FgetRequest.MAX_BLOCKS, 1),
                requests.stream().map(r -> r.blocks().size()).toList());
        assertEquals(seqs, requests.stream().flatMap(r -> r.blocks().stream()).toList(), "in order, none lost");
        requests.forEach(r -> assertEquals(r, FgetRequest.parse(r.format())));
    }

    @Test
    void limitsTheBlocksOfOneRequest() {
        List<Long> most = LongStream.range(0, FgetRequest.MAX_BLOCKS).boxed().toList();
        assertDoesNotThrow(() -> new FgetRequest(ID, most));
        assertEquals("FGET: 1025 blocks (expected: 1..1024)", assertThrows(IllegalArgumentException.class,
                () -> new FgetRequest(ID, LongStream.rangeClosed(0, FgetRequest.MAX_BLOCKS).boxed().toList())).getMessage());
        assertEquals("FGET: 0 blocks (expected: 1..1024)", assertThrows(IllegalArgumentException.class,
                () -> new FgetRequest(ID, List.of())).getMessage());
        String tooMany = ID + " " + LongStream.rangeClosed(0, FgetRequest.MAX_BLOCKS).mapToObj(Long::toString)
                .collect(Collectors.joining(","));
        assertEquals("blocks: more than 1024 (expected: <= 1024)", malformed(tooMany));
    }

    @Test
    void refusesMalformedArguments() {
        String missing = "FGET: missing argument (expected: FGET <transfer-id> <seq>[,<seq>...])";
        assertEquals(missing, malformed(""));
        assertEquals(missing, malformed("0000000000000007"));
        assertEquals(missing, malformed("0000000000000007 1 2"));
        assertEquals("transferId '0007': 4 hex digits (expected: 16)", malformed("0007 1"));
        assertThrows(IllegalArgumentException.class, () -> FgetRequest.parse("000000000000000g 1"));
        assertEquals("For input string: \"x\"", malformed(ID + " 1,x"));
        assertEquals("For input string: \"\"", malformed(ID + " 1,,2"));
        assertEquals("For input string: \"\"", malformed(ID + " 1,"));
    }

    @Test
    void blocksMustLieInsideThePlan() {
        FgetRequest r = FgetRequest.parse(ID + " 0,9");
        assertDoesNotThrow(() -> r.requireInside(10));
        assertEquals("block: 9 (expected: 0..8)", assertThrows(IllegalArgumentException.class,
                () -> r.requireInside(9)).getMessage());
        assertEquals("block: -1 (expected: 0..9)", assertThrows(IllegalArgumentException.class,
                () -> FgetRequest.parse(ID + " -1").requireInside(10)).getMessage());
    }

    private static String malformed(String argument) {
        return assertThrows(IllegalArgumentException.class, () -> FgetRequest.parse(argument)).getMessage();
    }
}
