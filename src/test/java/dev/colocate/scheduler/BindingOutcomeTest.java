package dev.colocate.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colocate.scheduler.BindingOutcome.ReadBack;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class BindingOutcomeTest {

    static Stream<Arguments> answers() {
        ReadBack here = new ReadBack(true, "k-1");
        ReadBack elsewhere = new ReadBack(true, "k-2");
        ReadBack unbound = new ReadBack(true, null);
        return Stream.of(
                // refused by the API server: undone without a read (the supplier would throw)
                Arguments.of(422, null, BindingOutcome.NOT_BOUND),
                Arguments.of(403, null, BindingOutcome.NOT_BOUND),
                Arguments.of(404, null, BindingOutcome.NOT_BOUND),
                Arguments.of(429, null, BindingOutcome.NOT_BOUND),
                // an answer that may hide an applied Binding: the read decides
                Arguments.of(500, here, BindingOutcome.BOUND),
                Arguments.of(0, here, BindingOutcome.BOUND),
                Arguments.of(409, here, BindingOutcome.BOUND),
                Arguments.of(503, elsewhere, BindingOutcome.NOT_BOUND),
                Arguments.of(500, ReadBack.GONE, BindingOutcome.NOT_BOUND),
                Arguments.of(504, unbound, BindingOutcome.UNKNOWN),
                Arguments.of(0, ReadBack.UNREADABLE, BindingOutcome.UNKNOWN));
    }

    @ParameterizedTest
    @MethodSource("answers")
    void aBindingFailureIsUndoneOnlyWhenThePodCannotBeBoundToTheNode(int code, ReadBack read,
            BindingOutcome expected) {
        assertThat(BindingOutcome.of(code, () -> {
            if (read == null) {
                throw new AssertionError("a refused Binding needs no read");
            }
            return read;
        }, "k-1")).isEqualTo(expected);
    }
}
