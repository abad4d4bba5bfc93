package dev.colocate.operator;

import dev.colocate.api.Labels;

/** The one label selector of the operator's informers: they cache only what the operator made. */
final class ManagedDependent {

    static final String SELECTOR = Labels.MANAGED_BY + "=" + Labels.MANAGER;

    private ManagedDependent() {
    }
}
