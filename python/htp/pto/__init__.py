"""HTP's PTO backend on the Python side (targets ``pto-a2a3sim``, ``pto-a2a3``).

``htp.pto.runtime`` runs the packages the PTO targets compile to on
pto-runtime; the compiled kernel names it as its runner, so ``htp`` itself
never imports it for other targets.
"""
