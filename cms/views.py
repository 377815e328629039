"""CMS screens: the post list, a post with its newest comments, edit with conflict
detection, history, compare, revert, and all comments. Thin: the store does Redis."""

from contextlib import contextmanager
from dataclasses import replace

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from cms import diff, store
from cms.forms import CommentForm, CompareForm, PostEditForm, PostFilterForm, PostForm
from config.listing import list_state, page_of

HISTORY_PER_PAGE = 20
COMMENTS_PER_PAGE = 10


def _now() -> float:
    return timezone.now().timestamp()


def _detail_url(pk: int) -> str:
    return reverse("cms:post_detail", args=[pk])


def _partial(request, template: str, name: str) -> str:
    return f"{template}#{name}" if request.htmx and not request.htmx.boosted else template


@contextmanager
def _or_404(what: str = "post"):
    """A missing post, revision or comment is a 404."""
    try:
        yield
    except store.NotFound:
        raise Http404(f"No such {what}") from None


def _get_post(pk: int) -> store.PostPage:
    with _or_404():
        return store.get_post(pk)


def post_list(request):
    state = list_state(request.GET, sorts=("updated",), default_order="-updated", filters=("status", "author"))
    filter_form = PostFilterForm(request.GET)
    filter_form.is_valid()
    valid = {k: v for k, v in state.filters.items() if k not in filter_form.errors}
    state = replace(state, filters=valid)
    items, total = store.list_posts(state)
    page = page_of(items, total, state)
    context = {"page": page, "state": state, "filter_form": filter_form}
    return render(request, _partial(request, "cms/post_list.html", "results"), context)


def post_add(request):
    form = PostForm(request.POST or None, initial={"author": request.user.get_username(), "status": "draft"})
    if request.method == "POST" and form.is_valid():
        post = store.create_post(
            form.content(),
            by=request.user.get_username(),
            comment=form.cleaned_data["comment"],
            at=_now(),
            link=_detail_url,
        )
        messages.success(request, f"Post “{post.title}” was created at version 1.")
        return redirect("cms:post_detail", post.id)
    return render(request, "cms/post_form.html", {"form": form, "adding": True})


def post_detail(request, pk: int):
    return render(request, "cms/post_detail.html", {"view": _get_post(pk), "comment_form": CommentForm()})


def post_edit(request, pk: int):
    if request.method != "POST":
        view = _get_post(pk)
        post = view.post
        form = PostEditForm(initial={**post.content(), "version": post.version})
        return render(request, "cms/post_form.html", {"form": form, "post": post})
    form = PostEditForm(request.POST)
    between = None
    if form.is_valid():
        try:
            with _or_404():
                saved = store.save_post(
                    pk,
                    form.content(),
                    base_version=form.cleaned_data["version"],
                    by=request.user.get_username(),
                    comment=form.cleaned_data["comment"],
                    at=_now(),
                    link=_detail_url(pk),
                )
        except store.EditConflict as conflict:
            between = conflict.between
            # Keep the editor's text; the form now carries the version they have seen,
            # so saving again is a deliberate choice to replace what changed.
            data = request.POST.copy()
            data["version"] = str(between.current.version)
            form = PostEditForm(data)
            form.is_valid()
            now = between.current.version
            form.add_error(None, f"Someone saved this post while you were editing (it is now at version {now}).")
        else:
            if saved is None:
                messages.info(request, "Nothing changed, so nothing was saved and no revision was made.")
            else:
                kept = saved.version - 1
                messages.success(request, f"Saved version {saved.version}; version {kept} is in the history.")
            return redirect("cms:post_detail", pk)
    post = between.current if between else _get_post(pk).post
    changes = diff.compare(between.base_snapshot, between.current) if between and between.base_snapshot else []
    context = {"form": form, "post": post, "between": between, "changes": changes}
    return render(request, "cms/post_form.html", context, status=409 if between else 200)


def post_delete(request, pk: int):
    if request.method == "POST":
        with _or_404():
            post = store.delete_post(pk, by=request.user.get_username())
        messages.success(request, f"Post “{post.title}” was deleted with its revisions and comments.")
        return redirect("cms:post_list")
    return render(request, "cms/post_confirm_delete.html", {"view": _get_post(pk)})


def post_history(request, pk: int):
    state = list_state(request.GET, per_page=HISTORY_PER_PAGE)
    with _or_404():
        current, revisions, total = store.history(pk, state.offset, state.per_page)
    page = page_of(revisions, total, state)
    context = {"post": current, "page": page, "state": state, "cap": store.revisions_kept()}
    return render(request, _partial(request, "cms/post_history.html", "rows"), context)


def post_compare(request, pk: int):
    form = CompareForm(request.GET)
    context = {"form": form, "pk": pk}
    if not form.is_valid():
        if "a" in request.GET:
            return render(request, "cms/post_compare.html", {**context, "post": _get_post(pk).post})
        # No revision chosen: compare the current version with the one before it.
        post = _get_post(pk).post
        if post.version == 1:
            return render(request, "cms/post_compare.html", {**context, "post": post})
        form = CompareForm({"a": post.version - 1, "b": post.version})
        form.is_valid()
    a, b = form.cleaned_data["a"], form.cleaned_data["b"]
    with _or_404("revision"):
        current, snapshots = store.versions(pk, (a,) if b is None else (a, b))
    b = current.version if b is None else b
    older, newer = sorted((a, b))
    snapshots[current.version] = current
    context.update(
        post=current,
        older=snapshots[older],
        newer=snapshots[newer],
        changes=diff.compare(snapshots[older], snapshots[newer]),
    )
    return render(request, "cms/post_compare.html", context)


@require_POST
def post_revert(request, pk: int, number: int):
    with _or_404("revision"):
        saved = store.revert_post(pk, number, by=request.user.get_username(), at=_now(), link=_detail_url(pk))
    if saved is None:
        messages.info(request, f"Revision {number} has the same content as the current version: nothing to revert.")
    else:
        messages.success(request, f"Reverted to revision {number}: saved as version {saved.version}.")
    return redirect("cms:post_history", pk)


def comment_list(request, pk: int):
    state = list_state(request.GET, per_page=COMMENTS_PER_PAGE)
    with _or_404():
        title, comments, total = store.comments_page(pk, state.offset, state.per_page)
    context = {"pk": pk, "title": title, "page": page_of(comments, total, state), "state": state}
    return render(request, _partial(request, "cms/comment_list.html", "comments"), context)


@require_POST
def comment_add(request, pk: int):
    form = CommentForm(request.POST)
    if form.is_valid():
        with _or_404():
            store.add_comment(
                pk, author=request.user.get_username(), text=form.cleaned_data["text"], at=_now(), link=_detail_url(pk)
            )
        messages.success(request, "Your comment was added.")
        return redirect(_detail_url(pk) + "#comments")
    return render(request, "cms/post_detail.html", {"view": _get_post(pk), "comment_form": form}, status=400)


@require_POST
def comment_delete(request, pk: int, comment_id: int):
    with _or_404("comment"):
        store.delete_comment(pk, comment_id, by=request.user.get_username(), link=_detail_url(pk))
    messages.success(request, "The comment was deleted.")
    return redirect(_detail_url(pk) + "#comments")
