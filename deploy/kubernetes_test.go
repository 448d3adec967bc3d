package deploy

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	natsserver "github.com/nats-io/nats-server/v2/server"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/runcmd"
	"github.com/mqgate/mqgate/internal/driver/zenoh/zenohhelper/zenohtest"
	"github.com/mqgate/mqgate/internal/exit"
)

// kubeDir holds the manifests of docs/deploy.md, "Kubernetes".
const kubeDir = "kubernetes"

// imagePlaceholder is the image every container names; the
// kustomization's images entry sets it.
const imagePlaceholder = "mqgate"

// indexPath is the Downward API field that holds an Indexed Job pod's
// completion index.
const indexPath = "metadata.annotations['batch.kubernetes.io/job-completion-index']"

// connectBudget is the least time a role gives itself to connect after
// its start barrier (roles.Run: max(--timeout, 10 s)).
const connectBudget = 10 * time.Second

// kustomization is the part of kustomize's Kustomization these manifests
// use (kubectl.docs.kubernetes.io, "kustomization"); decoded strictly, an
// unknown field fails as in the API types.
type kustomization struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Resources  []string `json:"resources"`
	Images     []struct {
		Name    string `json:"name"`
		NewName string `json:"newName,omitempty"`
		NewTag  string `json:"newTag,omitempty"`
	} `json:"images"`
}

// kinds are the API types the manifests (and the Pods of docs/deploy.md)
// may hold, by apiVersion and kind.
var kinds = map[string]func() any{
	"apps/v1/Deployment":       func() any { return &appsv1.Deployment{} },
	"batch/v1/Job":             func() any { return &batchv1.Job{} },
	"v1/Service":               func() any { return &corev1.Service{} },
	"v1/ConfigMap":             func() any { return &corev1.ConfigMap{} },
	"v1/PersistentVolumeClaim": func() any { return &corev1.PersistentVolumeClaim{} },
	"v1/Pod":                   func() any { return &corev1.Pod{} },
	"kustomize.config.k8s.io/v1beta1/Kustomization": func() any { return &kustomization{} },
}

// object is one decoded document.
type object struct {
	where string // file:line of its first line
	obj   any
}

// docSep separates the documents of a YAML stream.
var docSep = regexp.MustCompile(`(?m)^---[ \t]*$`)

// decodeManifests decodes every document of files (by name) strictly
// into its API type: an unknown apiVersion/kind, an unknown or misspelt
// field (in any letter case), a duplicate key or a value of the wrong
// type is an error naming file and line.
func decodeManifests(files map[string][]byte) ([]object, error) {
	var objs []object
	var errs []error
	for _, name := range sortedKeys(files) {
		data := files[name]
		// Document i runs from bounds[i] to the next separator.
		seps := docSep.FindAllIndex(data, -1)
		bounds := [][2]int{}
		start := 0
		for _, sep := range seps {
			bounds = append(bounds, [2]int{start, sep[0]})
			start = min(sep[1]+1, len(data)) // past the separator's line
		}
		bounds = append(bounds, [2]int{start, len(data)})
		for _, b := range bounds {
			start, end := b[0], b[1]
			doc := data[start:end]
			where := fmt.Sprintf("%s:%d", name, bytes.Count(data[:start], []byte("\n"))+1)
			obj, err := decodeDoc(doc)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", where, err))
				continue
			}
			if obj != nil {
				objs = append(objs, object{where, obj})
			}
		}
	}
	return objs, errors.Join(errs...)
}

// decodeDoc decodes one document by its apiVersion and kind (nil for a
// document of comments only).
func decodeDoc(doc []byte) (any, error) {
	var generic map[string]any
	if err := yaml.UnmarshalStrict(doc, &generic); err != nil {
		return nil, err
	}
	if generic == nil {
		return nil, nil
	}
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return nil, err
	}
	newObj, ok := kinds[tm.APIVersion+"/"+tm.Kind]
	if !ok {
		return nil, fmt.Errorf("apiVersion %q kind %q: expected one of %s", tm.APIVersion, tm.Kind, strings.Join(sortedKeys(kinds), ", "))
	}
	obj := newObj()
	if err := yaml.UnmarshalStrict(doc, obj); err != nil {
		return nil, fmt.Errorf("%s: %w", tm.Kind, err)
	}
	// encoding/json matches field names in any letter case; the API
	// server does not. What the type writes back must hold every field
	// given, as given.
	back, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var round map[string]any
	if err := json.Unmarshal(back, &round); err != nil {
		return nil, err
	}
	if path, ok := covers(round, generic, tm.Kind); !ok {
		return nil, fmt.Errorf("%s: field %s is not one of the type's (a letter-case misspelling?)", tm.Kind, path)
	}
	return obj, nil
}

// covers reports whether every field of given is in got with the same
// value, or the path of the first one that is not.
func covers(got, given any, path string) (string, bool) {
	switch g := given.(type) {
	case map[string]any:
		m, ok := got.(map[string]any)
		if !ok {
			return path, false
		}
		for _, k := range sortedKeys(g) {
			if p, ok := covers(m[k], g[k], path+"."+k); !ok {
				return p, false
			}
		}
		return "", true
	case []any:
		l, ok := got.([]any)
		if !ok || len(l) != len(g) {
			return path, false
		}
		for i := range g {
			if p, ok := covers(l[i], g[i], fmt.Sprintf("%s[%d]", path, i)); !ok {
				return p, false
			}
		}
		return "", true
	}
	// Numbers decode as float64 on both sides; a quantity or an
	// int-or-string writes back as it was given.
	return path, reflect.DeepEqual(got, given) || fmt.Sprint(got) == fmt.Sprint(given)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// topology is the decoded manifests, by kind and name.
type topology struct {
	kust        *kustomization
	deployments map[string]*appsv1.Deployment
	jobs        map[string]*batchv1.Job
	services    map[string]*corev1.Service
	configMaps  map[string]*corev1.ConfigMap
	claims      map[string]*corev1.PersistentVolumeClaim
	where       map[any]string
}

func newTopology(objs []object) (*topology, error) {
	t := &topology{deployments: map[string]*appsv1.Deployment{}, jobs: map[string]*batchv1.Job{},
		services: map[string]*corev1.Service{}, configMaps: map[string]*corev1.ConfigMap{},
		claims: map[string]*corev1.PersistentVolumeClaim{}, where: map[any]string{}}
	var errs []error
	add := func(o object, kind, name string, put func() bool) {
		if name == "" {
			errs = append(errs, fmt.Errorf("%s: %s without metadata.name", o.where, kind))
		} else if !put() {
			errs = append(errs, fmt.Errorf("%s: a second %s %q", o.where, kind, name))
		}
	}
	for _, o := range objs {
		t.where[o.obj] = o.where
		switch v := o.obj.(type) {
		case *kustomization:
			if t.kust != nil {
				errs = append(errs, fmt.Errorf("%s: a second Kustomization", o.where))
			}
			t.kust = v
		case *appsv1.Deployment:
			add(o, "Deployment", v.Name, func() bool { return putNew(t.deployments, v.Name, v) })
		case *batchv1.Job:
			add(o, "Job", v.Name, func() bool { return putNew(t.jobs, v.Name, v) })
		case *corev1.Service:
			add(o, "Service", v.Name, func() bool { return putNew(t.services, v.Name, v) })
		case *corev1.ConfigMap:
			add(o, "ConfigMap", v.Name, func() bool { return putNew(t.configMaps, v.Name, v) })
		case *corev1.PersistentVolumeClaim:
			add(o, "PersistentVolumeClaim", v.Name, func() bool { return putNew(t.claims, v.Name, v) })
		case *corev1.Pod:
			errs = append(errs, fmt.Errorf("%s: a bare Pod; the topology's pods belong to Deployments and Jobs", o.where))
		}
	}
	return t, errors.Join(errs...)
}

func putNew[V any](m map[string]V, k string, v V) bool {
	if _, ok := m[k]; ok {
		return false
	}
	m[k] = v
	return true
}

// workload is a Deployment's or a Job's pods.
type workload struct {
	kind, name, where string
	pod               *corev1.PodTemplateSpec
	job               *batchv1.Job // nil for a Deployment
}

func (t *topology) workloads() []workload {
	var ws []workload
	for _, name := range sortedKeys(t.deployments) {
		d := t.deployments[name]
		ws = append(ws, workload{"Deployment", name, t.where[d], &d.Spec.Template, nil})
	}
	for _, name := range sortedKeys(t.jobs) {
		j := t.jobs[name]
		ws = append(ws, workload{"Job", name, t.where[j], &j.Spec.Template, j})
	}
	return ws
}

// selected are the workloads whose pods carry every label of sel.
func (t *topology) selected(sel map[string]string) []workload {
	var out []workload
	for _, w := range t.workloads() {
		if len(sel) > 0 && matches(sel, w.pod.Labels) {
			out = append(out, w)
		}
	}
	return out
}

func matches(sel, labels map[string]string) bool {
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// rolePod is one pod of a role's Job: its role, index and environment as
// the kubelet gives it.
type rolePod struct {
	w     workload
	c     *corev1.Container
	role  string
	index int
	env   map[string]string
}

func (p rolePod) String() string {
	return fmt.Sprintf("%s: Job %s index %d", p.w.where, p.w.name, p.index)
}

// setting is the role's MQ_ variable name, or def when not set.
func (p rolePod) setting(name, def string) string {
	if v, ok := p.env[name]; ok {
		return v
	}
	return def
}

// checkTopology checks what decoding cannot: that the manifests form the
// topology docs/deploy.md describes, and that every command line and MQ_*
// variable is one the tools accept (each role's is parsed by run itself,
// for every completion index).
func checkTopology(files map[string][]byte) error {
	objs, err := decodeManifests(files)
	if err != nil {
		return err
	}
	t, err := newTopology(objs)
	if err != nil {
		return err
	}
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	// The kustomization lists every manifest and sets the image.
	if t.kust == nil {
		fail("no kustomization.yaml")
	} else {
		var manifests []string
		for name := range files {
			if name != "kustomization.yaml" {
				manifests = append(manifests, name)
			}
		}
		slices.Sort(manifests)
		if got := slices.Sorted(slices.Values(t.kust.Resources)); !slices.Equal(got, manifests) {
			fail("kustomization.yaml: resources %v, expected the manifests %v", got, manifests)
		}
		if len(t.kust.Images) != 1 || t.kust.Images[0].Name != imagePlaceholder {
			fail("kustomization.yaml: images %+v, expected one entry, name %q", t.kust.Images, imagePlaceholder)
		}
	}

	// Services select pods that exist and serve the port they name.
	for _, name := range sortedKeys(t.services) {
		s := t.services[name]
		ws := t.selected(s.Spec.Selector)
		if len(ws) != 1 {
			fail("%s: Service %s selects %d workloads' pods, expected 1", t.where[s], name, len(ws))
			continue
		}
		for _, p := range s.Spec.Ports {
			if !hasPort(ws[0].pod, p.TargetPort.String()) {
				fail("%s: Service %s: targetPort %s is no container port of %s %s", t.where[s], name, p.TargetPort.String(), ws[0].kind, ws[0].name)
			}
		}
		if ws[0].job != nil && (s.Spec.ClusterIP != corev1.ClusterIPNone || ws[0].pod.Spec.Subdomain != name) {
			fail("%s: Service %s over Job %s's pods: expected a headless Service (clusterIP: None) named as their subdomain (%q)", t.where[s], name, ws[0].name, ws[0].pod.Spec.Subdomain)
		}
	}

	var pods []rolePod
	for _, w := range t.workloads() {
		errs = append(errs, t.checkPod(w)...)
		if w.job == nil {
			d := t.deployments[w.name]
			if d.Spec.Selector == nil || !matches(d.Spec.Selector.MatchLabels, w.pod.Labels) {
				fail("%s: Deployment %s: its selector does not match its pods' labels", w.where, w.name)
			}
			for i := range w.pod.Spec.Containers {
				errs = append(errs, t.checkServer(w, &w.pod.Spec.Containers[i])...)
			}
			continue
		}
		ps, jerrs := t.jobPods(w)
		errs = append(errs, jerrs...)
		pods = append(pods, ps...)
	}
	errs = append(errs, t.checkRoles(pods)...)
	return errors.Join(errs...)
}

// checkPod checks what every pod needs: the image, the user and read-only
// root of the image, no service links (they would add variables), and the
// volumes and configuration it refers to.
func (t *topology) checkPod(w workload) []error {
	var errs []error
	fail := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s %s: %s", w.where, w.kind, w.name, fmt.Sprintf(format, args...)))
	}
	ps := w.pod.Spec
	sc := ps.SecurityContext
	if sc == nil || !eq(sc.RunAsUser, imageUID) || !eq(sc.RunAsGroup, imageUID) || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		fail("expected securityContext runAsUser and runAsGroup %d, runAsNonRoot: true (the image's user)", imageUID)
	}
	// Kubernetes adds <SERVICE>_PORT… variables for every Service of the
	// namespace; one named mq-… would give the roles an MQ_ variable they
	// refuse.
	if ps.EnableServiceLinks == nil || *ps.EnableServiceLinks {
		fail("expected enableServiceLinks: false")
	}
	vols := map[string]corev1.Volume{}
	for _, v := range ps.Volumes {
		vols[v.Name] = v
		if v.PersistentVolumeClaim != nil {
			c, ok := t.claims[v.PersistentVolumeClaim.ClaimName]
			if !ok {
				fail("volume %s: no PersistentVolumeClaim %q", v.Name, v.PersistentVolumeClaim.ClaimName)
			} else if !slices.Contains(c.Spec.AccessModes, corev1.ReadWriteMany) {
				fail("volume %s: claim %s is not ReadWriteMany, so pods on several nodes cannot share it", v.Name, c.Name)
			}
		}
	}
	for _, c := range ps.Containers {
		// A Pod applied on its own (docs/deploy.md) names the image itself.
		if c.Image != imagePlaceholder && w.kind != "Pod" {
			fail("container %s: image %q, expected the placeholder %q that kustomization.yaml sets", c.Name, c.Image, imagePlaceholder)
		}
		csc := c.SecurityContext
		if csc == nil || csc.ReadOnlyRootFilesystem == nil || !*csc.ReadOnlyRootFilesystem || csc.AllowPrivilegeEscalation == nil || *csc.AllowPrivilegeEscalation {
			fail("container %s: expected securityContext readOnlyRootFilesystem: true, allowPrivilegeEscalation: false", c.Name)
		}
		for _, m := range c.VolumeMounts {
			if _, ok := vols[m.Name]; !ok {
				fail("container %s mounts %s, which is no volume of the pod", c.Name, m.Name)
			}
		}
		for _, ef := range c.EnvFrom {
			if ef.ConfigMapRef == nil || t.configMaps[ef.ConfigMapRef.Name] == nil {
				fail("container %s: envFrom names no ConfigMap of the manifests", c.Name)
			}
		}
		for _, p := range []*corev1.Probe{c.StartupProbe, c.ReadinessProbe, c.LivenessProbe} {
			if p == nil {
				continue
			}
			port := ""
			switch {
			case p.HTTPGet != nil:
				port = p.HTTPGet.Port.String()
			case p.TCPSocket != nil:
				port = p.TCPSocket.Port.String()
			}
			if !hasPort(w.pod, port) {
				fail("container %s: a probe on port %q, which no container declares", c.Name, port)
			}
		}
	}
	return errs
}

func eq(p *int64, v int64) bool { return p != nil && *p == v }

// hasPort reports whether a container of pod declares port, by name or
// number.
func hasPort(pod *corev1.PodTemplateSpec, port string) bool {
	for _, c := range pod.Spec.Containers {
		for _, p := range c.Ports {
			if p.Name == port || strconv.Itoa(int(p.ContainerPort)) == port {
				return true
			}
		}
	}
	return false
}

// containerPort is the port number a container declares under name.
func containerPort(c *corev1.Container, name string) int {
	for _, p := range c.Ports {
		if p.Name == name {
			return int(p.ContainerPort)
		}
	}
	return 0
}

// checkServer checks a router's or the broker's command line, parsed as
// the tool parses it where that can run here (nats-server; the Zenoh
// helper's in TestKubernetesRouterArgs), and its probes and ports.
func (t *topology) checkServer(w workload, c *corev1.Container) []error {
	var errs []error
	fail := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: Deployment %s container %s: %s", w.where, w.name, c.Name, fmt.Sprintf(format, args...)))
	}
	if c.ReadinessProbe == nil || c.LivenessProbe == nil {
		fail("expected a readiness and a liveness probe")
	}
	if len(c.Command) == 0 {
		fail("no command")
		return errs
	}
	switch c.Command[0] {
	case "nats-server":
		fs := flag.NewFlagSet("nats-server", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		noop := func() {}
		opts, err := natsserver.ConfigureOptions(fs, c.Command[1:], noop, noop, noop)
		if err != nil {
			fail("nats-server %s: %v", strings.Join(c.Command[1:], " "), err)
		} else if opts.Port != containerPort(c, "nats") {
			fail("nats-server listens on port %d, the container declares %d", opts.Port, containerPort(c, "nats"))
		}
	case "mqgate-zenoh":
		if len(c.Command) < 2 || c.Command[1] != "router" {
			fail("expected mqgate-zenoh router …")
			break
		}
		for i, a := range c.Command {
			if i+1 >= len(c.Command) {
				break
			}
			v := c.Command[i+1]
			switch a {
			case "--listen":
				if _, port, err := net.SplitHostPort(strings.TrimPrefix(v, "tcp/")); err != nil || port != strconv.Itoa(containerPort(c, "zenoh")) {
					fail("--listen %s: expected tcp/HOST:%d, the container's port", v, containerPort(c, "zenoh"))
				}
			case "--connect":
				if err := t.servicePort(strings.TrimPrefix(v, "tcp/")); err != nil {
					fail("--connect %s: %v", v, err)
				}
			}
		}
	default:
		fail("command %q: expected nats-server or mqgate-zenoh router", c.Command[0])
	}
	return errs
}

// servicePort checks that HOST:PORT is a Service of the manifests and one
// of its ports.
func (t *topology) servicePort(hostPort string) error {
	host, port, err := net.SplitHostPort(hostPort)
	if err != nil {
		return err
	}
	s, ok := t.services[host]
	if !ok {
		return fmt.Errorf("%s is no Service of the manifests", host)
	}
	for _, p := range s.Spec.Ports {
		if strconv.Itoa(int(p.Port)) == port {
			return nil
		}
	}
	return fmt.Errorf("Service %s has no port %s", host, port)
}

// jobPods checks a role's Job and returns its pods, one per completion
// index, each with its environment.
func (t *topology) jobPods(w workload) ([]rolePod, []error) {
	var errs []error
	fail := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: Job %s: %s", w.where, w.name, fmt.Sprintf(format, args...)))
	}
	spec := w.job.Spec
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
		fail("expected completionMode: Indexed (the index is the role's instance)")
	}
	// Every pod of a role runs at once: a sub waits for all its
	// publishers, which wait for it.
	if spec.Completions == nil || spec.Parallelism == nil || *spec.Completions < 1 || *spec.Parallelism != *spec.Completions {
		fail("expected completions ≥ 1 and parallelism equal to it (every host of a role at once)")
		return nil, errs
	}
	if spec.BackoffLimit == nil || *spec.BackoffLimit != 0 || w.pod.Spec.RestartPolicy != corev1.RestartPolicyNever {
		fail("expected backoffLimit: 0 and restartPolicy: Never (a measurement is not repeated into the same experiment)")
	}
	if a := w.pod.Spec.Affinity; a != nil && a.PodAntiAffinity != nil {
		for _, term := range a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			if sel := term.PodAffinityTerm.LabelSelector; sel == nil || !matches(sel.MatchLabels, w.pod.Labels) {
				fail("the anti-affinity's selector does not match the Job's own pods")
			}
		}
	}
	if len(w.pod.Spec.Containers) != 1 {
		fail("expected one container, the role")
		return nil, errs
	}
	c := &w.pod.Spec.Containers[0]
	if len(c.Command) != 2 || c.Command[0] != "run" || !slices.Contains([]string{"pub", "sub", "req", "qry"}, c.Command[1]) || len(c.Args) != 0 {
		fail("command %q: expected run pub|sub|req|qry, every setting in MQ_* variables", c.Command)
		return nil, errs
	}
	// run parses every index's settings, the last index first: a Job too
	// large for the instance range is refused there, and once one pod is
	// refused the Job's other indices need not be parsed (a Job of 257
	// pods would take 257 parses to find the one refusal).
	pods := make([]rolePod, *spec.Completions)
	refused := false
	for i := len(pods) - 1; i >= 0; i-- {
		env, err := t.podEnv(c, i)
		if err != nil {
			fail("%v", err)
			return nil, errs
		}
		pods[i] = rolePod{w: w, c: c, role: c.Command[1], index: i, env: env}
		if refused {
			continue
		}
		if err := runAcceptsCached(c.Command, env); err != nil {
			errs = append(errs, fmt.Errorf("%v: %w", pods[i], err))
			refused = true
		}
	}
	out := pods[len(pods)-1].setting("MQ_OUT_DIR", "results")
	if !slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool {
		return m.MountPath == out && slices.ContainsFunc(w.pod.Spec.Volumes, func(v corev1.Volume) bool {
			return v.Name == m.Name && v.PersistentVolumeClaim != nil
		})
	}) {
		fail("MQ_OUT_DIR %s is not where a PersistentVolumeClaim is mounted", out)
	}
	return pods, errs
}

// podEnv is the environment of container c in the pod of completion index
// i, made as the kubelet makes it: envFrom first, then env in order, each
// value's $(NAME) replaced by a variable defined before it.
func (t *topology) podEnv(c *corev1.Container, index int) (map[string]string, error) {
	env := map[string]string{}
	for _, ef := range c.EnvFrom {
		if ef.ConfigMapRef == nil || ef.Prefix != "" {
			return nil, fmt.Errorf("envFrom: expected a configMapRef without prefix")
		}
		cm, ok := t.configMaps[ef.ConfigMapRef.Name]
		if !ok {
			return nil, fmt.Errorf("envFrom: no ConfigMap %q", ef.ConfigMapRef.Name)
		}
		for k, v := range cm.Data {
			env[k] = v
		}
	}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom == nil:
			v, err := expand(e.Value, env)
			if err != nil {
				return nil, fmt.Errorf("env %s: %w", e.Name, err)
			}
			env[e.Name] = v
		case e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == indexPath:
			env[e.Name] = strconv.Itoa(index)
		default:
			return nil, fmt.Errorf("env %s: expected a value or the completion index (fieldRef %s)", e.Name, indexPath)
		}
	}
	return env, nil
}

// refRE is a $(NAME) reference of an env value, or its escape $$.
var refRE = regexp.MustCompile(`\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// expand replaces the references of v as the kubelet does; one to a
// variable not defined before would stay as written, which the test
// refuses.
func expand(v string, env map[string]string) (string, error) {
	var err error
	out := refRE.ReplaceAllStringFunc(v, func(ref string) string {
		if ref == "$$" {
			return "$"
		}
		name := ref[2 : len(ref)-1]
		val, ok := env[name]
		if !ok && err == nil {
			err = fmt.Errorf("%q refers to %s, which no variable before it defines", v, ref)
		}
		return val
	})
	return out, err
}

// accepted holds runAccepts' answers by command and MQ_* variables, which
// are all it depends on: the rejected cases check the topology again with
// one manifest changed, so that most pods' settings are parsed by run
// already (under -race a parse takes tenths of a second).
var accepted = struct {
	sync.Mutex
	m map[string]error
}{m: map[string]error{}}

// runAcceptsCached is runAccepts, asked once per command and MQ_*
// variables.
func runAcceptsCached(command []string, env map[string]string) error {
	var key strings.Builder
	key.WriteString(strings.Join(command, "\x00"))
	for _, k := range slices.Sorted(maps.Keys(env)) {
		if strings.HasPrefix(k, "MQ_") {
			fmt.Fprintf(&key, "\x01%s=%s", k, env[k])
		}
	}
	accepted.Lock()
	defer accepted.Unlock()
	if err, ok := accepted.m[key.String()]; ok {
		return err
	}
	err := runAccepts(command, env)
	accepted.m[key.String()] = err
	return err
}

// runAccepts runs run's role command (["run", role]) in this process with
// env as its MQ_* variables (every other MQ_ variable unset) and a
// cancelled context: run parses and checks every setting, then starts its
// start barrier, which the cancellation ends at once. Exit 130 with the
// barrier's interruption is acceptance; anything else is the tool's error.
func runAccepts(command []string, env map[string]string) error {
	saved := map[string]string{}
	for _, kv := range os.Environ() {
		if name, value, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "MQ_") {
			saved[name] = value
			os.Unsetenv(name)
		}
	}
	for k, v := range env {
		if strings.HasPrefix(k, "MQ_") {
			os.Setenv(k, v)
		}
	}
	defer func() {
		for k := range env {
			if strings.HasPrefix(k, "MQ_") {
				os.Unsetenv(k)
			}
		}
		for k, v := range saved {
			os.Setenv(k, v)
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	code := cliapp.Run(ctx, runcmd.App(), command, &stdout, &stderr)
	if code != exit.Interrupted || !strings.Contains(stderr.String(), "interrupted while waiting for --wait-for") {
		return fmt.Errorf("%s refuses its settings (exit %d): %s", strings.Join(command, " "), code, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// checkRoles checks the roles together: what each connects to and waits
// for exists, pub and req wait for every sub or qry pod of their
// experiment, the sub expects every publisher, no two measuring pods
// write the same sub-experiment, and the probes and serving times allow
// the start barrier.
func (t *topology) checkRoles(pods []rolePod) []error {
	var errs []error
	fail := func(p rolePod, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%v: %s", p, fmt.Sprintf(format, args...)))
	}
	// peer is the role pub and req wait for; an experiment is a run id and
	// a system.
	peer := map[string]string{"pub": "sub", "req": "qry"}
	experiment := func(p rolePod) string { return p.env["MQ_RUN_ID"] + "/" + p.setting("MQ_DRIVER", "nats") }
	dur := func(p rolePod, name, def string) time.Duration {
		d, _ := time.ParseDuration(p.setting(name, def))
		return d
	}
	publishers := map[string]int{}
	measured := map[string]rolePod{}
	for _, p := range pods {
		if p.role == "pub" {
			n, _ := strconv.Atoi(p.setting("MQ_PUBLISHERS", "1"))
			publishers[experiment(p)] += n
		}
		if p.role == "sub" || p.role == "req" {
			label := p.setting("MQ_LABEL", map[string]string{"sub": "pubsub", "req": "query"}[p.role])
			key := experiment(p) + "_" + p.setting("MQ_RELIABILITY", "best_effort") + "_" + label
			if q, ok := measured[key]; ok {
				fail(p, "writes sub-experiment %s as %v does: give each pod its own MQ_LABEL", key, q)
			}
			measured[key] = p
		}
	}
	for _, p := range pods {
		for _, ep := range strings.Split(p.env["MQ_ENDPOINTS"], ",") {
			hp := strings.TrimPrefix(strings.TrimPrefix(ep, "tcp/"), "nats://")
			if err := t.servicePort(hp); err != nil {
				fail(p, "MQ_ENDPOINTS %s: %v", ep, err)
			}
		}
		var healthOf = map[string][]int{} // Job → indices waited for
		for _, a := range strings.Split(p.env["MQ_WAIT_FOR"], ",") {
			if u, err := url.Parse(a); err == nil && (u.Scheme == "tcp" || u.Scheme == "nats") {
				if err := t.servicePort(u.Host); err != nil {
					fail(p, "MQ_WAIT_FOR %s: %v", a, err)
				}
				if name := u.Query().Get("server_name"); u.Scheme == "nats" && name != t.natsServerName() {
					fail(p, "MQ_WAIT_FOR %s: server_name %q, but nats-server is named %q (its -n)", a, name, t.natsServerName())
				}
				continue
			}
			job, index, err := t.healthOf(a)
			if err != nil {
				fail(p, "MQ_WAIT_FOR %s: %v", a, err)
				continue
			}
			healthOf[job] = append(healthOf[job], index)
		}
		switch p.role {
		case "pub", "req":
			var want []string
			for _, q := range pods {
				if q.role == peer[p.role] && experiment(q) == experiment(p) && q.index == 0 {
					want = append(want, q.w.name)
				}
			}
			if len(want) == 0 {
				fail(p, "no %s Job of experiment %s", peer[p.role], experiment(p))
			}
			for _, name := range want {
				n := int(*t.jobs[name].Spec.Completions)
				if got := slices.Sorted(slices.Values(healthOf[name])); !slices.Equal(got, seq(n)) {
					fail(p, "MQ_WAIT_FOR waits for the /health of %s pods %v, expected all of its %d", name, got, n)
				}
			}
			for name := range healthOf {
				if !slices.Contains(want, name) {
					fail(p, "MQ_WAIT_FOR waits for Job %s, not a %s of experiment %s", name, peer[p.role], experiment(p))
				}
			}
		case "sub", "qry":
			errs = append(errs, checkHealth(p, dur(p, "MQ_WAIT_TIMEOUT", "1m"))...)
		}
		if p.role == "sub" {
			if n, _ := strconv.Atoi(p.setting("MQ_PUBLISHERS", "1")); n != publishers[experiment(p)] {
				fail(p, "MQ_PUBLISHERS %d, but the pub Jobs of experiment %s have %d publishers in all (completions × MQ_PUBLISHERS)", n, experiment(p), publishers[experiment(p)])
			}
		}
		if p.role == "qry" {
			for _, q := range pods {
				if q.role == "req" && experiment(q) == experiment(p) {
					if need := dur(p, "MQ_WAIT_TIMEOUT", "1m") + dur(q, "MQ_DURATION", "10s"); dur(p, "MQ_DURATION", "10s") < need {
						fail(p, "serves for MQ_DURATION %v, less than the wait plus %v's sending (%v)", dur(p, "MQ_DURATION", "10s"), q, need)
					}
				}
			}
		}
	}
	return errs
}

// natsServerName is the name (-n, --server_name) nats-server is given
// in the manifests, which it announces in its INFO line.
func (t *topology) natsServerName() string {
	for _, d := range t.deployments {
		for _, c := range d.Spec.Template.Spec.Containers {
			if len(c.Command) > 0 && c.Command[0] == "nats-server" {
				fs := flag.NewFlagSet("nats-server", flag.ContinueOnError)
				fs.SetOutput(io.Discard)
				noop := func() {}
				if opts, err := natsserver.ConfigureOptions(fs, c.Command[1:], noop, noop, noop); err == nil {
					return opts.ServerName
				}
			}
		}
	}
	return ""
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// healthOf is the Job and completion index of a sub's or qry's /health
// address, http://<job>-<index>.<headless service>:PORT/health, checking
// that the pod serves it there.
func (t *topology) healthOf(addr string) (string, int, error) {
	rest, ok := strings.CutPrefix(addr, "http://")
	hp, path, _ := strings.Cut(rest, "/")
	if !ok || path != "health" {
		return "", 0, errors.New("expected tcp://SERVICE:PORT, nats://SERVICE:PORT?server_name=NAME or http://POD.SERVICE:PORT/health")
	}
	host, port, err := net.SplitHostPort(hp)
	if err != nil {
		return "", 0, err
	}
	podName, svc, _ := strings.Cut(host, ".")
	s, ok := t.services[svc]
	if !ok || s.Spec.ClusterIP != corev1.ClusterIPNone {
		return "", 0, fmt.Errorf("%s is no headless Service of the manifests", svc)
	}
	for _, w := range t.selected(s.Spec.Selector) {
		if w.job == nil {
			continue
		}
		index, err := strconv.Atoi(strings.TrimPrefix(podName, w.name+"-"))
		if !strings.HasPrefix(podName, w.name+"-") || err != nil || index < 0 || index >= int(*w.job.Spec.Completions) {
			return "", 0, fmt.Errorf("%s is no pod of Job %s (%s-0 … %s-%d)", podName, w.name, w.name, w.name, *w.job.Spec.Completions-1)
		}
		c := &w.pod.Spec.Containers[0]
		env, err := t.podEnv(c, index)
		if err != nil {
			return "", 0, err
		}
		if _, served, _ := net.SplitHostPort(env["MQ_PROM_ADDR"]); served != port {
			return "", 0, fmt.Errorf("Job %s serves /health at MQ_PROM_ADDR %q, not port %s", w.name, env["MQ_PROM_ADDR"], port)
		}
		return w.name, index, nil
	}
	return "", 0, fmt.Errorf("Service %s selects no Job's pods", svc)
}

// checkHealth checks a sub's or qry's probes: /health at MQ_PROM_ADDR's
// port, and a startup probe that waits as long as the role's own start
// barrier and connection take before /health answers.
func checkHealth(p rolePod, wait time.Duration) []error {
	var errs []error
	_, port, err := net.SplitHostPort(p.env["MQ_PROM_ADDR"])
	if err != nil {
		return []error{fmt.Errorf("%v: MQ_PROM_ADDR %q: expected HOST:PORT (its /health is the probes' and the start barrier's)", p, p.env["MQ_PROM_ADDR"])}
	}
	for name, probe := range map[string]*corev1.Probe{"startup": p.c.StartupProbe, "readiness": p.c.ReadinessProbe, "liveness": p.c.LivenessProbe} {
		if probe == nil || probe.HTTPGet == nil || probe.HTTPGet.Path != "/health" {
			errs = append(errs, fmt.Errorf("%v: expected a %s probe httpGet /health", p, name))
			continue
		}
		pp := probe.HTTPGet.Port.String()
		if pp != port && strconv.Itoa(containerPort(p.c, pp)) != port {
			errs = append(errs, fmt.Errorf("%v: the %s probe asks port %s, /health is at MQ_PROM_ADDR's %s", p, name, pp, port))
		}
	}
	if s := p.c.StartupProbe; s != nil {
		period, failures := cmp.Or(s.PeriodSeconds, 10), cmp.Or(s.FailureThreshold, 3) // the API's defaults
		if window := time.Duration(period*failures) * time.Second; window < wait+connectBudget {
			errs = append(errs, fmt.Errorf("%v: the startup probe gives up after %v, before the role's wait (MQ_WAIT_TIMEOUT %v) and connection (%v)", p, window, wait, connectBudget))
		}
	}
	return errs
}

// readManifests reads deploy/kubernetes, by file name.
func readManifests(t *testing.T) map[string][]byte {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(kubeDir, "*.yaml"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no manifests in %s: %v", kubeDir, err)
	}
	files := map[string][]byte{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(n)] = b
	}
	return files
}

// TestKubernetesManifests decodes every manifest of deploy/kubernetes
// strictly with the Kubernetes API types and checks the topology they form
// and every command line and MQ_* variable against the tools themselves.
// No cluster is needed, and none has run them.
func TestKubernetesManifests(t *testing.T) {
	files := readManifests(t)
	if err := checkTopology(files); err != nil {
		t.Fatal(err)
	}
	// The topology of the Compose file: per system, the servers and one
	// Job per role.
	objs, _ := decodeManifests(files)
	top, _ := newTopology(objs)
	var got []string
	for _, w := range top.workloads() {
		got = append(got, w.kind+" "+w.name)
	}
	want := []string{"Deployment mqgate-nats", "Deployment mqgate-zenoh-router-a", "Deployment mqgate-zenoh-router-b"}
	for _, sys := range []string{"nats", "zenoh"} {
		for _, role := range []string{"pub", "qry", "req", "sub"} {
			want = append(want, "Job mqgate-"+sys+"-"+role)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("workloads %v, expected %v", got, want)
	}
}

// TestKubernetesManifestsRejected shows that the checks can fail: each
// case changes a copy of the manifests in memory, and the check must name
// what is wrong.
func TestKubernetesManifestsRejected(t *testing.T) {
	files := readManifests(t)
	for _, c := range []struct {
		name, file, old, new string
		nth                  int // which occurrence of old (0: the first, -1: the last)
		want                 string
	}{
		{"misspelt field", "zenoh-roles.yaml", "completionMode:", "completionMod:", 0, `Job: error unmarshaling JSON: while decoding JSON: json: unknown field "completionMod"`},
		{"field in another letter case", "nats-roles.yaml", "backoffLimit:", "backofflimit:", 0, "field Job.spec.backofflimit is not one of the type's"},
		{"duplicate key", "artifacts.yaml", "  name: mqgate-artifacts\n", "  name: mqgate-artifacts\n  name: other\n", 0, `key "name" already set`},
		{"wrong type", "zenoh-routers.yaml", "replicas: 1", "replicas: one", 0, "Deployment: error unmarshaling JSON"},
		{"wrong kind", "nats-server.yaml", "kind: Deployment", "kind: Deploymnet", 0, `apiVersion "apps/v1" kind "Deploymnet": expected one of`},
		{"kind in the wrong group", "zenoh-roles.yaml", "apiVersion: batch/v1", "apiVersion: apps/v1", 0, `apiVersion "apps/v1" kind "Job"`},
		{"misspelt MQ_ name", "zenoh-roles.yaml", "name: MQ_RATE", "name: MQ_RAET", 0, `environment variable MQ_RAET: unknown setting "raet"`},
		{"misspelt MQ_ name in the ConfigMap", "settings.yaml", "MQ_TIMEOUT:", "MQ_TIMEOUTS:", 0, "environment variable MQ_TIMEOUTS: unknown setting"},
		{"bad value", "settings.yaml", `MQGATE_RATE: "200"`, `MQGATE_RATE: fast`, 0, "run pub refuses its settings (exit 2): run: rate (from environment variable MQ_RATE): fast is not a number"},
		{"bad duration", "settings.yaml", "MQ_WAIT_TIMEOUT: 5m", "MQ_WAIT_TIMEOUT: 5 minutes", 0, "run req refuses its settings (exit 2): run: wait-timeout (from environment variable MQ_WAIT_TIMEOUT): 5 minutes is not a duration"},
		{"undefined reference", "nats-roles.yaml", "$(MQGATE_QPS)", "$(MQGATE_QSP)", 0, "refers to $(MQGATE_QSP), which no variable before it defines"},
		{"instance out of range", "nats-roles.yaml", "completions: 2\n  parallelism: 2", "completions: 257\n  parallelism: 257", 0, "index 256: run pub refuses its settings (exit 2): run: --instance 256: expected 0 to 255"},
		{"unknown role", "zenoh-roles.yaml", `["run", "qry"]`, `["run", "query"]`, 0, "expected run pub|sub|req|qry"},
		{"nats-server flag", "nats-server.yaml", `"-p", "4222"`, `"--prot", "4222"`, 0, "nats-server -a 0.0.0.0 --prot 4222 -n mqgate-topology: flag provided but not defined"},
		{"nats-server of another name", "nats-server.yaml", `"-n", "mqgate-topology"`, `"-n", "other"`, 0, `server_name "mqgate-topology", but nats-server is named "other" (its -n)`},
		{"wait for a missing Service", "zenoh-roles.yaml", "tcp://mqgate-zenoh-router-a:7447", "tcp://mqgate-zenoh-router-c:7447", 0, "mqgate-zenoh-router-c is no Service of the manifests"},
		{"wait for a missing sub pod", "nats-roles.yaml", "mqgate-nats-sub-0.mqgate-nats-sub", "mqgate-nats-sub-1.mqgate-nats-sub", 0, "mqgate-nats-sub-1 is no pod of Job mqgate-nats-sub"},
		{"wait for a wrong port", "nats-roles.yaml", "mqgate-nats-sub:9102/health", "mqgate-nats-sub:9103/health", 0, "not port 9103"},
		{"no wait for the sub", "zenoh-roles.yaml", ",http://mqgate-zenoh-sub-0.mqgate-zenoh-sub:9102/health", "", 0, "waits for the /health of mqgate-zenoh-sub pods [], expected all of its 1"},
		{"endpoint port", "nats-roles.yaml", "nats://mqgate-nats:4222", "nats://mqgate-nats:4223", 0, "Service mqgate-nats has no port 4223"},
		{"router link", "zenoh-routers.yaml", "--connect\", \"tcp/mqgate-zenoh-router-a", "--connect\", \"tcp/mqgate-zenoh-router", 0, "--connect tcp/mqgate-zenoh-router:7447: mqgate-zenoh-router is no Service"},
		{"selector", "nats-server.yaml", "app.kubernetes.io/component: nats", "app.kubernetes.io/component: natz", -1, "Service mqgate-nats selects 0 workloads' pods"},
		{"headless", "zenoh-roles.yaml", "  clusterIP: None\n", "", 0, "expected a headless Service"},
		{"target port", "zenoh-routers.yaml", "targetPort: zenoh", "targetPort: zenho", 0, "targetPort zenho is no container port"},
		{"claim", "nats-roles.yaml", "claimName: mqgate-artifacts", "claimName: mqgate-artifact", 0, `no PersistentVolumeClaim "mqgate-artifact"`},
		{"claim not shared", "artifacts.yaml", "[ReadWriteMany]", "[ReadWriteOnce]", 0, "is not ReadWriteMany"},
		{"mount", "zenoh-roles.yaml", "mountPath: /artifacts", "mountPath: /results", 0, "MQ_OUT_DIR /artifacts is not where a PersistentVolumeClaim is mounted"},
		{"ConfigMap", "zenoh-roles.yaml", "name: mqgate-settings", "name: mqgate-setting", 0, "envFrom names no ConfigMap"},
		{"parallelism", "zenoh-roles.yaml", "parallelism: 2", "parallelism: 1", 0, "parallelism equal to it"},
		{"publishers", "nats-roles.yaml", "value: \"2\"", "value: \"3\"", 0, "MQ_PUBLISHERS 3, but the pub Jobs of experiment k8s-pubsub/nats have 2 publishers"},
		{"two subs, one label", "zenoh-roles.yaml", "completions: 1\n  parallelism: 1", "completions: 2\n  parallelism: 2", 0, "give each pod its own MQ_LABEL"},
		{"serving too short", "settings.yaml", "MQGATE_SERVE: 6m", "MQGATE_SERVE: 5m", 0, "serves for MQ_DURATION 5m0s, less than the wait"},
		{"startup probe", "nats-roles.yaml", "failureThreshold: 65", "failureThreshold: 6", 0, "the startup probe gives up after 30s"},
		{"probe path", "zenoh-roles.yaml", "path: /health", "path: /healthz", 0, "expected a startup probe httpGet /health"},
		{"server probe", "zenoh-routers.yaml", "          livenessProbe:\n            tcpSocket:\n              port: zenoh\n            periodSeconds: 10\n", "", 0, "expected a readiness and a liveness probe"},
		{"user", "nats-server.yaml", "runAsUser: 65532", "runAsUser: 0", 0, "expected securityContext runAsUser"},
		{"read-only root", "zenoh-roles.yaml", "readOnlyRootFilesystem: true", "readOnlyRootFilesystem: false", -1, "readOnlyRootFilesystem: true"},
		{"service links", "nats-roles.yaml", "      enableServiceLinks: false\n", "", 0, "expected enableServiceLinks: false"},
		{"image", "zenoh-routers.yaml", "image: mqgate\n", "image: mqgate:v1\n", 0, `image "mqgate:v1", expected the placeholder`},
		{"kustomization resources", "kustomization.yaml", "  - nats-roles.yaml\n", "", 0, "kustomization.yaml: resources"},
		{"kustomization image", "kustomization.yaml", "- name: mqgate\n", "- name: mqgate-image\n", 0, "kustomization.yaml: images"},
	} {
		t.Run(c.name, func(t *testing.T) {
			changed := maps.Clone(files)
			s := string(files[c.file])
			i := strings.Index(s, c.old)
			if c.nth < 0 {
				i = strings.LastIndex(s, c.old)
			}
			if i < 0 {
				t.Fatalf("%s holds no %q", c.file, c.old)
			}
			changed[c.file] = []byte(s[:i] + c.new + s[i+len(c.old):])
			err := checkTopology(changed)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v\nexpected an error with %q", err, c.want)
			}
		})
	}
}

// TestKubernetesRouterArgs parses the routers' command lines with the
// Zenoh helper itself: each followed by --help, so that the helper checks
// every flag and value before it, then prints its help instead of
// routing. A misspelt flag fails.
func TestKubernetesRouterArgs(t *testing.T) {
	helper := zenohtest.Helper(t)
	objs, err := decodeManifests(readManifests(t))
	if err != nil {
		t.Fatal(err)
	}
	top, _ := newTopology(objs)
	parse := func(args []string) error {
		out, err := exec.Command(helper, append(slices.Clone(args), "--help")...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("mqgate-zenoh %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	routers := 0
	for _, w := range top.workloads() {
		for _, c := range w.pod.Spec.Containers {
			if len(c.Command) > 0 && c.Command[0] == "mqgate-zenoh" {
				routers++
				if err := parse(c.Command[1:]); err != nil {
					t.Errorf("%s: %s %s: %v", w.where, w.kind, w.name, err)
				}
			}
		}
	}
	if routers != 2 {
		t.Errorf("%d Zenoh routers, expected 2", routers)
	}
	if err := parse([]string{"router", "--lisen", "tcp/0.0.0.0:7447"}); err == nil {
		t.Error("mqgate-zenoh accepted router --lisen")
	}
}

// docYAML is a YAML block of docs/deploy.md, indented as in a list item.
var docYAML = regexp.MustCompile("(?ms)^( *)```yaml\n(.*?)^ *```")

// TestKubernetesDocs decodes the Pods that docs/deploy.md's Kubernetes
// section tells users to apply, as strictly as the manifests, and checks
// them against the manifests' claim and the image's user.
func TestKubernetesDocs(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "deploy.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## Kubernetes\n")
	if !ok {
		t.Fatal("docs/deploy.md has no section Kubernetes")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	objs, err := decodeManifests(readManifests(t))
	if err != nil {
		t.Fatal(err)
	}
	top, _ := newTopology(objs)
	blocks := docYAML.FindAllStringSubmatch(sec, -1)
	if len(blocks) == 0 {
		t.Fatal("no yaml block in docs/deploy.md's Kubernetes section")
	}
	for i, m := range blocks {
		var doc strings.Builder
		for line := range strings.Lines(m[2]) {
			doc.WriteString(strings.TrimPrefix(line, m[1]))
		}
		obj, err := decodeDoc([]byte(doc.String()))
		pod, ok := obj.(*corev1.Pod)
		if err != nil || !ok {
			t.Errorf("docs/deploy.md, yaml block %d: %v, expected a Pod (%T)", i+1, err, obj)
			continue
		}
		w := workload{kind: "Pod", name: pod.Name, where: fmt.Sprintf("docs/deploy.md, yaml block %d", i+1), pod: &corev1.PodTemplateSpec{Spec: pod.Spec}}
		for _, err := range top.checkPod(w) {
			t.Error(err)
		}
	}
}
