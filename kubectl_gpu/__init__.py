"""kubectl-gpu: GPU debugging for Kubernetes and EKS Auto Mode."""

__version__ = "0.1.0"
