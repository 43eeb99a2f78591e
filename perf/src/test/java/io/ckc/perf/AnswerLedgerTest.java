package io.ckc.perf;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.function.BiPredicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The rules of {@code ./ckc load --expect} and the ledger that matches answers to requests with them. */
class AnswerLedgerTest {

    private static final ClassLoader LOADER = AnswerLedgerTest.class.getClassLoader();

    @Test
    void eachRuleSaysWhatARightAnswerIs() {
        assertThat(AnswerRule.parse("unchanged", LOADER).accepts(bytes("hi"), bytes("hi"))).isTrue();
        assertThat(AnswerRule.parse("unchanged", LOADER).accepts(bytes("hi"), bytes("HI"))).isFalse();
        assertThat(AnswerRule.parse("upper", LOADER).accepts(bytes("message 1"), bytes("MESSAGE 1"))).isTrue();
        assertThat(AnswerRule.parse("upper", LOADER).accepts(bytes("message 1"), bytes("MESSAGE 2"))).isFalse();
        assertThat(AnswerRule.parse("prefix:ack:", LOADER).accepts(bytes("m 1"), bytes("ack:m 1"))).isTrue();
        assertThat(AnswerRule.parse("prefix:ack:", LOADER).accepts(bytes("m 1"), bytes("m 1"))).isFalse();
        assertThat(AnswerRule.parse("regex:ok \\d+", LOADER).accepts(bytes("x"), bytes("ok 12"))).isTrue();
        assertThat(AnswerRule.parse("regex:ok \\d+", LOADER).accepts(bytes("x"), bytes("ok 12!"))).isFalse();
        AnswerRule reversed = AnswerRule.parse("class:" + Reversed.class.getName(), LOADER);
        assertThat(reversed.accepts(bytes("abc"), bytes("cba"))).isTrue();
        assertThat(reversed.accepts(bytes("abc"), bytes("abc"))).isFalse();

        assertThatThrownBy(() -> AnswerRule.parse("lower", LOADER)).hasMessageContaining("--expect is unchanged, upper");
        assertThatThrownBy(() -> AnswerRule.parse("class:no.Such", LOADER)).hasMessageContaining("--classpath");
        assertThatThrownBy(() -> AnswerRule.parse("class:" + String.class.getName(), LOADER))
                .hasMessageContaining("is not a BiPredicate");
    }

    @Test
    void anAnswerGoesToItsNodesOldestOpenRequestThatFitsAndTheRestIsWrongOrARepeat() {
        AnswerLedger ledger = new AnswerLedger(2, AnswerRule.parse("upper", LOADER));
        byte[] first = ledger.request(0, 0);
        byte[] second = ledger.request(0, 1);
        ledger.request(1, 0);
        assertThat(new String(first, StandardCharsets.UTF_8)).isEqualTo("message 0 from node 0");

        ledger.answer(0, bytes("MESSAGE 1 FROM NODE 0"));   // the second's answer first: the first stays open
        ledger.answer(0, bytes("MESSAGE 1 FROM NODE 0"));   // again: a repeat the SDK did not drop
        ledger.answer(0, bytes("message 0 from node 0"));   // not upper case: wrong
        ledger.answer(1, bytes("MESSAGE 0 FROM NODE 0"));   // node 0's text at node 1: wrong there

        assertThat(ledger.right.get()).isOne();
        assertThat(ledger.duplicates.get()).isOne();
        assertThat(ledger.wrong.get()).isEqualTo(2);
        assertThat(ledger.unanswered()).as("node 0's first and node 1's").isEqualTo(2);
        assertThat(ledger.roundTrips().getTotalCount()).isOne();
        assertThat(ledger.wrongExamples()).containsExactly(
                "node 0 got 'message 0 from node 0' for 'message 0 from node 0'",
                "node 1 got 'MESSAGE 0 FROM NODE 0' for 'message 0 from node 1'");
        assertThat(second).isNotEqualTo(first);
    }

    /** A user's rule: the answer is the request backwards. */
    public static final class Reversed implements BiPredicate<byte[], byte[]> {
        @Override
        public boolean test(byte[] request, byte[] answer) {
            return new StringBuilder(new String(request, StandardCharsets.UTF_8)).reverse().toString()
                    .equals(new String(answer, StandardCharsets.UTF_8));
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
