# The API server fixtures, for end-to-end tests against a live (test) cluster.
from tests.kube.conftest import apiserver, kubeconfig  # noqa: F401
