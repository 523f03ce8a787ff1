"""The dashboard shows a query the way its instance registers (QueryView), naming no paper: a picture to
judge, a record to label, or the arm's features. A user's own instance can bring a picture."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import safebandits as sb
from safebandits.exceptions import ConfigError
from safebandits.problems.registry import QueryView, register_instance

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from safebandits.dashboard import create_app
from safebandits.dashboard.views import query_view


def _draw_bars(ax, params, arm):
    ax.bar(
        range(int(params.get("n_arms", 4))),
        np.arange(4.0),
        color=["C1" if i == arm else "C0" for i in range(4)],
    )
    ax.set_title(f"dose {arm} of {params.get('n_arms', 4)}")


@register_instance(
    "test/pictured",
    view=QueryView("picture", draw=_draw_bars, caption="Dose {arm} drawn in orange.", question="Safe dose?",
                   accept="Safe", reject="Too toxic", size=(3.0, 2.0)),
)  # fmt: skip
def _pictured(*, n_arms: int = 4):
    """A one-dimensional problem whose queries are pictures (a test instance)."""
    return sb.make_instance("acol/one-dimensional", noise="binary", n_arms=n_arms)


def _study(tmp_path, instance, params, name="s"):
    url = f"sqlite:///{tmp_path / 's.db'}"
    inst = sb.make_instance(instance, **params)
    problem = {"instance": instance, "params": params}
    sb.create_study(name, "g-acol", inst.public_info(), storage=url, seed=0, problem=problem).close()
    return url


def test_a_users_instance_brings_its_picture_and_words(tmp_path):
    url = _study(tmp_path, "test/pictured", {"n_arms": 4})
    client = TestClient(create_app(url), base_url="http://127.0.0.1")
    query = sb.load_study("s", url).ask()
    page = client.get(f"/study/s/query/{query.id}")
    assert page.status_code == 200
    text = page.text
    picture = text.split('id="picture-view"', 1)[1].split("</div>", 1)[0]
    assert "<svg" in picture
    assert f"Dose {query.arm} drawn in orange." in text and "Safe dose?" in text
    assert ">Safe</button>" in text and ">Too toxic</button>" in text
    assert "driving" not in text.lower()


def test_views_by_instance_by_stored_name_and_by_task(tmp_path):
    url = _study(tmp_path, "test/pictured", {"n_arms": 4})
    assert query_view(sb.load_study("s", url)).kind == "picture"
    (tmp_path / "other").mkdir()
    url2 = _study(tmp_path / "other", "acol/one-dimensional", {})
    assert query_view(sb.load_study("s", url2)).kind == "generic"


@pytest.mark.parametrize("bad", [{"kind": "video"}, {"kind": "picture", "draw": 3}])
def test_query_views_are_checked(bad):
    with pytest.raises(ConfigError):
        QueryView(**bad)
    with pytest.raises(ConfigError, match="QueryView"):
        register_instance("test/bad-view", view="picture")


def test_a_drawing_named_by_module_is_imported_only_to_draw():
    view = QueryView("picture", draw="safebandits.papers.acol.figures:draw_query")
    assert callable(view.drawer()) and view.drawer().__name__ == "draw_query"
    with pytest.raises(ConfigError, match="module:function"):
        QueryView("picture", draw="no-colon-here")
    assert QueryView().drawer() is None


@register_instance(
    "test/aliased",
    view=QueryView("picture", draw=_draw_bars, caption="Dose {arm}.", aliases=("old-doses",)),
)
def _aliased(*, n_arms: int = 4):
    """A problem whose view had another name in older studies (a test instance)."""
    return sb.make_instance("acol/one-dimensional", noise="binary", n_arms=n_arms)


def test_an_older_view_name_is_registered_by_its_instance(tmp_path):
    """A study that stored an older view name (``problem["view"]``) opens with the kind the instance that
    registered the name gives it; the dashboard holds no such name itself."""
    from safebandits.dashboard import views

    info = sb.make_instance("acol/one-dimensional").public_info()
    for i, (stored, kind) in enumerate(
        (("old-doses", "picture"), ("picture", "picture"), ("label", "label"), ("no-such-view", "generic"))
    ):
        url = f"sqlite:///{tmp_path / f'{i}.db'}"
        sb.create_study("s", "g-acol", info, storage=url, seed=0, problem={"view": stored}).close()
        assert query_view(sb.load_study("s", url)).kind == kind, stored
    # the papers' older names come from their registrations (acol's driving view, beside's FDR pools)
    names = views._view_names(sb.list_instances())
    assert names["old-doses"] == "picture" and names["driving"] == "picture" and names["fdr"] == "label"
    with pytest.raises(ConfigError, match="aliases"):
        QueryView("label", aliases=("picture",))
    with pytest.raises(ConfigError, match="aliases"):
        QueryView("label", aliases="fdr")
