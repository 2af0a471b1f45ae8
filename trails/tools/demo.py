"""Tools for the bundled demo app: each is recorded by name, e.g. `demo_signIn: {email: ..., password: '{{password}}'}`."""

from __future__ import annotations

import trailblaze


def _by_id(ctx: trailblaze.ToolContext, name: str) -> dict[str, object]:
    """The demo app's element with resource id `name`, as this platform's selector."""
    if ctx.platform == "android":
        return {"androidAccessibility": {"resourceIdRegex": f"dev.trailblaze.demo:id/{name}"}}
    return {"iosMaestro": {"resourceIdRegex": name}}


@trailblaze.tool
def demo_signIn(ctx: trailblaze.ToolContext, email: str, password: str) -> str:
    """Sign in on the demo app's login screen: type the email and the password, then tap "Sign in".

    Args:
        email: The account's email address.
        password: The password; pass a secret as its template, e.g. `{{password}}`.
    """
    ctx.run("tapOnElementBySelector", nodeSelector=_by_id(ctx, "email"))
    ctx.run("inputText", text=email)
    ctx.run("tapOnElementBySelector", nodeSelector=_by_id(ctx, "password"))
    ctx.run("inputText", text=password)
    ctx.run("tapOnElementBySelector", nodeSelector=_by_id(ctx, "sign_in"))
    return f"signed in as {email}"
