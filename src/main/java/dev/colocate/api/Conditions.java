package dev.colocate.api;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** Kubernetes API conditions: set one by type, keeping lastTransitionTime while its status does not change. */
public final class Conditions {

    private Conditions() {
    }

    /** The conditions with {@code type} set; the list given is not changed. */
    public static List<Condition> with(List<Condition> current, String type, boolean status, String reason,
            String message, Long generation, Instant now) {
        String value = status ? "True" : "False";
        List<Condition> out = new ArrayList<>();
        boolean found = false;
        for (Condition c : current == null ? List.<Condition>of() : current) {
            if (!type.equals(c.getType())) {
                out.add(c);
                continue;
            }
            found = true;
            String since = value.equals(c.getStatus()) ? c.getLastTransitionTime() : now.toString();
            out.add(build(type, value, reason, message, generation, since));
        }
        if (!found) {
            out.add(build(type, value, reason, message, generation, now.toString()));
        }
        return out;
    }

    /** The condition of a type, or null. */
    public static Condition find(List<Condition> conditions, String type) {
        return conditions == null ? null
                : conditions.stream().filter(c -> Objects.equals(type, c.getType())).findFirst().orElse(null);
    }

    /** Whether the condition of a type is True. */
    public static boolean isTrue(List<Condition> conditions, String type) {
        Condition c = find(conditions, type);
        return c != null && "True".equals(c.getStatus());
    }

    private static Condition build(String type, String status, String reason, String message, Long generation,
            String since) {
        return new ConditionBuilder().withType(type).withStatus(status).withReason(reason).withMessage(message)
                .withObservedGeneration(generation).withLastTransitionTime(since).build();
    }
}
