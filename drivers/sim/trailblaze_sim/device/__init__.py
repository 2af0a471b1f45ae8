"""The simulated phone both platforms share: `simulated.SimulatedDevice` and the collaborators it is
made of (state, steps, view tree, profile, log, screenshots). Speaks no protocol."""
