"""The NodePools view (`o`): each NodePool as it constrains GPU capacity (requirements, taints, limits,
consolidation, expiry, budgets now). Its accelerator figures are the Overview's (`kubectl gpu pools`)."""

from kubectl_gpu.pages.spec import Page, Ref, TuiFace

PAGE = Page(
    name="nodepools",
    summary="NodePools: requirements, taints, limits used, consolidation, expiry, budgets now",
    tui=TuiFace(Ref("kubectl_gpu.tui.views.nodepools:NodePoolsView"), "o", "NodePools", "Pools"),
    aliases=("nodepools", "nodepool", "np", "pools"),
    doc="tui.md",
)
