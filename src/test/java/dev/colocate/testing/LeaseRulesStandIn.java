package dev.colocate.testing;

import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectRulesReviewBuilder;
import io.quarkus.test.kubernetes.client.KubernetesServer;
import java.util.function.Consumer;

/**
 * TEST-SIDE STAND-IN for an API server endpoint fabric8's mock lacks: JOSDK's leader election first asks, by a
 * SelfSubjectRulesReview, whether it may use Leases, and the mock refuses that request as invalid (422). This answers
 * it as a real API server would for colocate's ServiceAccount, whose Role grants Leases get, create, update and patch.
 */
public class LeaseRulesStandIn implements Consumer<KubernetesServer> {

    @Override
    public void accept(KubernetesServer server) {
        server.expect().post().withPath("/apis/authorization.k8s.io/v1/selfsubjectrulesreviews")
                .andReturn(201, new SelfSubjectRulesReviewBuilder().withNewStatus().withIncomplete(false)
                        .addNewResourceRule().withApiGroups("coordination.k8s.io").withResources("leases")
                        .withVerbs("get", "create", "update", "patch").endResourceRule()
                        .endStatus().build())
                .always();
    }
}
