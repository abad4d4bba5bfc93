package dev.colocate.testing;

import io.fabric8.kubernetes.api.model.Capabilities;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.SeccompProfile;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Volume;
import java.util.ArrayList;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The checks of Kubernetes' {@code restricted} Pod Security Standard (which includes {@code baseline}), as the
 * admission controller applies them to a pod spec, plus a read-only root file system. Each violation names the field
 * and the container, the way {@code kubectl} reports a refused pod.
 */
public final class RestrictedProfile {

    private static final Set<String> VOLUME_TYPES = Set.of("configMap", "csi", "downwardAPI", "emptyDir", "ephemeral",
            "persistentVolumeClaim", "projected", "secret");
    private static final Set<String> SAFE_SYSCTLS = Set.of("kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range",
            "net.ipv4.ip_unprivileged_port_start", "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range",
            "net.ipv4.ip_local_reserved_ports", "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout",
            "net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes");

    /** What baseline lets a container add; restricted allows NET_BIND_SERVICE alone. */
    private static final Set<String> BASELINE_CAPABILITIES = Set.of("AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER",
            "FSETID", "KILL", "MKNOD", "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT");

    private RestrictedProfile() {
    }

    /** One failed check: {@code baseline} when the baseline profile has it too, else restricted's alone. */
    public record Violation(boolean baseline, String what) {
        @Override
        public String toString() {
            return what;
        }
    }

    /** What keeps {@code pod} from the restricted profile; empty when it passes. */
    public static List<Violation> violations(PodSpec pod) {
        List<Violation> out = new ArrayList<>();
        PodSecurityContext podContext = pod.getSecurityContext() == null ? new PodSecurityContext()
                : pod.getSecurityContext();
        if (Boolean.TRUE.equals(pod.getHostNetwork()) || Boolean.TRUE.equals(pod.getHostPID())
                || Boolean.TRUE.equals(pod.getHostIPC())) {
            out.add(new Violation(true, "host namespaces (hostNetwork, hostPID, hostIPC)"));
        }
        for (Volume volume : pod.getVolumes()) {
            String type = volumeType(volume);
            if (!VOLUME_TYPES.contains(type)) {
                out.add(new Violation(type.equals("hostPath"), "volume " + volume.getName() + " is a " + type
                        + " volume"));
            }
        }
        podContext.getSysctls().stream().filter(s -> !SAFE_SYSCTLS.contains(s.getName()))
                .forEach(s -> out.add(new Violation(true, "unsafe sysctl " + s.getName())));
        if (podContext.getRunAsUser() != null && podContext.getRunAsUser() == 0) {
            out.add(new Violation(false, "securityContext.runAsUser=0"));
        }
        boolean podNonRoot = Boolean.TRUE.equals(podContext.getRunAsNonRoot());
        boolean podSeccomp = restrictedSeccomp(podContext.getSeccompProfile());
        if (podContext.getSeccompProfile() != null && !podSeccomp) {
            out.add(new Violation(unconfined(podContext.getSeccompProfile()), "securityContext.seccompProfile.type="
                    + podContext.getSeccompProfile().getType()));
        }
        List<Container> containers = Stream.concat(pod.getInitContainers().stream(), pod.getContainers().stream())
                .toList();
        for (Container c : containers) {
            String where = "container " + c.getName() + " ";
            SecurityContext sc = c.getSecurityContext() == null ? new SecurityContext() : c.getSecurityContext();
            if (Boolean.TRUE.equals(sc.getPrivileged())) {
                out.add(new Violation(true, where + "is privileged"));
            }
            if (!Boolean.FALSE.equals(sc.getAllowPrivilegeEscalation())) {
                out.add(new Violation(false, where + "must set securityContext.allowPrivilegeEscalation=false"));
            }
            Capabilities caps = sc.getCapabilities() == null ? new Capabilities() : sc.getCapabilities();
            if (!caps.getDrop().contains("ALL")) {
                out.add(new Violation(false, where + "must set securityContext.capabilities.drop=[ALL]"));
            }
            caps.getAdd().stream().filter(a -> !a.equals("NET_BIND_SERVICE"))
                    .forEach(a -> out.add(new Violation(!BASELINE_CAPABILITIES.contains(a), where + "adds capability "
                            + a)));
            if (Boolean.FALSE.equals(sc.getRunAsNonRoot())
                    || !podNonRoot && !Boolean.TRUE.equals(sc.getRunAsNonRoot())) {
                out.add(new Violation(false, where + "must set securityContext.runAsNonRoot=true (pod or container)"));
            }
            if (sc.getRunAsUser() != null && sc.getRunAsUser() == 0) {
                out.add(new Violation(false, where + "sets securityContext.runAsUser=0"));
            }
            if (sc.getSeccompProfile() != null ? !restrictedSeccomp(sc.getSeccompProfile()) : !podSeccomp) {
                out.add(new Violation(unconfined(sc.getSeccompProfile()), where
                        + "must set securityContext.seccompProfile.type to RuntimeDefault or Localhost"));
            }
            if (sc.getProcMount() != null && !sc.getProcMount().equals("Default")) {
                out.add(new Violation(true, where + "sets procMount " + sc.getProcMount()));
            }
            for (ContainerPort port : c.getPorts()) {
                if (port.getHostPort() != null && port.getHostPort() != 0) {
                    out.add(new Violation(true, where + "uses hostPort " + port.getHostPort()));
                }
            }
            if (!Boolean.TRUE.equals(sc.getReadOnlyRootFilesystem())) {
                out.add(new Violation(false, where
                        + "must set securityContext.readOnlyRootFilesystem=true (colocate's rule, not the profile's)"));
            }
        }
        return out;
    }

    private static boolean unconfined(SeccompProfile profile) {
        return profile != null && "Unconfined".equals(profile.getType());
    }

    private static boolean restrictedSeccomp(SeccompProfile profile) {
        return profile != null && ("RuntimeDefault".equals(profile.getType()) || "Localhost".equals(profile.getType()));
    }

    /** The volume's source, as the API names it ({@code configMap}, {@code hostPath}, ...): its one key but name. */
    private static String volumeType(Volume v) {
        Map<?, ?> fields = Serialization.unmarshal(Serialization.asJson(v), Map.class);
        return fields.keySet().stream().map(Object::toString).filter(k -> !k.equals("name")).findFirst()
                .orElse("none");
    }
}
