"""CMS screens: the post list, a post with its newest comments, edit with conflict
detection, history, compare, revert, and all comments. Thin: the store does Redis."""

from dataclasses import replace

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.utils import timezone

from cms import diff, presenters, store
from cms.forms import CommentForm, CompareForm, PostEditForm, PostFilterForm, PostForm
from config.activity import Actor
from config.bulkdelete import BulkDelete, back_to_list, bulk_delete, selected_ids
from config.forms import focus_first_error
from config.listing import ListSpec, page_of, render_list
from config.saving import Saved, post_only, refill, save_view
from config.shortcuts import or_404

POSTS = ListSpec(sorts=store.SORTS, default_order="-updated", filters=("status", "author"), filter_form=PostFilterForm)
# The list with no filter in its query string (the list as most visits see it): no filter form to build
# and validate, and the status select is the blank one, rendered once per process.
UNFILTERED = replace(POSTS, filter_form=None)
HISTORY = ListSpec(per_page=20)
COMMENTS = ListSpec(per_page=10)


def _now() -> float:
    return timezone.now().timestamp()


def _detail_url(pk: int) -> str:
    return reverse("cms:post_detail", args=[pk])


def _actor(request) -> Actor:
    return Actor(request.user.get_username(), link=presenters.event_link)


def post_list(request):
    filtered = any(request.GET.get(name) for name in POSTS.filters)
    state = (POSTS if filtered else UNFILTERED).read(request)
    items, total, capped, unsorted = store.list_page(state)
    context = {
        "page": page_of(items, total, state), "state": state, "filter_form": state.form,
        "sort_refused": unsorted, "sort_limit": store.SORT_LIMIT, "back": state.query(),
        "sort_heads": presenters.sort_heads(state, (("title", "Title"), ("author", "Author"), ("status", "Status"),
                                                   ("updated", "Updated"))),
        "search_capped": capped, "search_limit": store.SEARCH_LIMIT,
        "rows": presenters.post_rows(items),
        "status_select": state.form["status"] if filtered else presenters.blank_status_select(),
        "author": (state.form["author"].value() or "") if filtered else "",
    }  # fmt: skip
    return render_list(request, "cms/post_list.html", context)


def post_add(request):
    form = PostForm(request.POST or None, initial={"author": request.user.get_username(), "status": "draft"})

    def save(data) -> Saved:
        post = store.create_post(form.content(), actor=_actor(request), comment=data["comment"], at=_now())
        return Saved(post.id, f"Post “{post.title}” was created at version 1.")

    return save_view(
        request, form, entity="cms:post", template="cms/post_form.html", context={"adding": True}, save=save
    )


def _delete_posts(ids: list[int], actor: Actor) -> tuple[list[str], int]:
    """The ticked posts deleted in one transaction: their titles, and how many were gone."""
    deleted, gone = store.delete_posts(ids, actor=actor)
    return [post.title for post in deleted], gone


POSTS_BULK = BulkDelete(
    noun="post", plural="posts", list_name="cms:post_list", detail_name="cms:post_detail",
    action_name="cms:post_bulk_delete", labels=store.post_labels,
    what_goes="with their revisions and comments",
    delete_many=_delete_posts,
    pattern_note="after a read of their comment ids, in one MULTI/EXEC of their delete scripts, each with every "
    "key in KEYS (the post, its revisions, its comments, its index entries and n-gram sets).",
)  # fmt: skip


@post_only(lambda: reverse("cms:post_list"))
def post_bulk_delete(request):
    return bulk_delete(request, POSTS_BULK, _actor(request))


def _detail(request, view: store.PostPage, comment_form: CommentForm | None = None, status: int = 200):
    """The post page; ``comment_form`` is a comment that was refused, shown with its errors."""
    context = {
        "view": view, "comment_form": comment_form,
        "comment_fields": None if comment_form else presenters.blank_form(CommentForm),
        "saved_at": presenters.when(view.post.updated_at), "created_at": presenters.when(view.post.created_at),
        "recent_comments": presenters.comment_items(view.post.id, view.recent_comments),
        "more_comments": view.num_comments > len(view.recent_comments),
    }  # fmt: skip
    return render(request, "cms/post_detail.html", context, status=status)


def post_detail(request, pk: int):
    """The post; its comment form refilled from a comment that met an expired session."""
    comment = refill(request, CommentForm(), reverse("cms:comment_add", args=[pk]))
    return _detail(request, or_404(store.get_post, pk), focus_first_error(comment) if comment.is_bound else None)


def post_edit(request, pk: int):
    """A save is one script; over a newer version, the conflict page shows the saves made meanwhile."""
    loaded = None if request.method == "POST" else or_404(store.get_post, pk).post
    form = PostEditForm(request.POST if loaded is None else None, initial=loaded and PostEditForm.initial_for(loaded))

    def save(data) -> Saved:
        saved = store.save_post(
            pk, form.content(), base_version=int(data["version"]), actor=_actor(request), comment=data["comment"],
            at=_now(), old_title=data["loaded_title"] or None, old_author=data["loaded_author"] or None,
        )  # fmt: skip
        title = data["title"]
        if saved is None:
            message = f"Nothing changed in “{title}”, so nothing was saved and no revision was made."
            return Saved(pk, message, messages.INFO)
        return Saved(pk, f"Saved “{title}” as version {saved.version}; version {saved.version - 1} is in the history.")

    def conflict_context(conflict) -> dict:
        between = conflict.between
        changes = diff.compare(between.base_snapshot, between.current) if between.base_snapshot else []
        return {"post": between.current, "between": between, "changes": changes}

    return save_view(
        request, form, entity="cms:post", template="cms/post_form.html", save=save,
        context=lambda: {"post": loaded or or_404(store.get_post, pk).post},
        theirs=lambda conflict: PostEditForm.initial_for(conflict.between.current), conflict_context=conflict_context,
    )  # fmt: skip


def post_delete(request, pk: int):
    if request.method == "POST":
        post = or_404(store.delete_post, pk, actor=_actor(request))
        messages.success(request, f"Post “{post.title}” was deleted with its revisions and comments.")
        return redirect("cms:post_list")
    return render(request, "cms/post_confirm_delete.html", {"view": or_404(store.get_post, pk)})


def post_history(request, pk: int):
    state = HISTORY.read(request)
    current, revisions, total = or_404(store.history, pk, state.offset, state.per_page)
    page = page_of(revisions, total, state)
    rows = presenters.history_rows(current, revisions, first_page=state.page == 1)
    context = {"post": current, "page": page, "state": state, "cap": store.revisions_kept(), "rows": rows}
    return render_list(request, "cms/post_history.html", context, "rows")


def post_compare(request, pk: int):
    form = CompareForm(request.GET)
    context = {"form": form, "pk": pk}
    if not form.is_valid():
        post = or_404(store.get_post, pk).post
        if "a" in request.GET or post.version == 1:
            return render(request, "cms/post_compare.html", {**context, "post": post})
        # No revision chosen: compare the current version with the one before it.
        form = CompareForm({"a": post.version - 1, "b": post.version})
        form.is_valid()
    a, b = form.cleaned_data["a"], form.cleaned_data["b"]
    current, snapshots = or_404(store.versions, pk, (a,) if b is None else (a, b))
    b = current.version if b is None else b
    older, newer = sorted((a, b))
    snapshots[current.version] = current
    changes = diff.compare(snapshots[older], snapshots[newer])
    context.update(post=current, older=snapshots[older], newer=snapshots[newer], changes=changes)
    context.update(
        older_when=presenters.when(snapshots[older].updated_at), newer_when=presenters.when(snapshots[newer].updated_at)
    )
    context["cut"] = [change.name for change in changes if change.diff.cut]
    return render(request, "cms/post_compare.html", context)


def post_revert(request, pk: int, number: int):
    """GET: what reverting to revision ``number`` would change; POST: the revert, as a new version. The page
    carries the version it showed: when the post was saved since, nothing is reverted and it shows again."""
    current, snapshots = or_404(store.versions, pk, (number,))
    revision = snapshots[number]
    shown = request.POST.get("version", "") if request.method == "POST" else ""
    if request.method == "POST" and shown in ("", str(current.version)):
        return _revert(request, current, revision, number)
    context = {
        "post": current, "revision": revision, "number": number, "changes": diff.compare(current, revision),
        "revision_when": presenters.when(revision.updated_at), "saved_at": presenters.when(current.updated_at),
        "hidden": [("version", current.version)], "cancel_url": reverse("cms:post_history", args=[pk]),
        "yes": f"Revert to revision {number}", "no": "No, keep the current version",
    }  # fmt: skip
    if request.method == "POST":
        messages.warning(
            request,
            f"The post was saved again (now version {current.version}) since you looked, so nothing was "
            "reverted: these are the changes from the version now.",
        )
    return render(request, "cms/post_confirm_revert.html", context, status=409 if request.method == "POST" else 200)


def _revert(request, current, revision, number: int):
    try:
        saved = store.revert_post(
            current.id, number, actor=_actor(request), at=_now(), author=current.author,
            titles=(current.title, revision.title),
        )  # fmt: skip
    except store.NotFound:
        raise Http404("No such object.") from None
    if saved is None:
        messages.info(request, f"Revision {number} has the same content as the current version: nothing to revert.")
    else:
        messages.success(request, f"“{saved.title}” reverted to revision {number}: saved as version {saved.version}.")
    return redirect("cms:post_history", current.id)


def comment_list(request, pk: int):
    state = COMMENTS.read(request)
    title, comments, total = or_404(store.comments_page, pk, state.offset, state.per_page)
    context = {"pk": pk, "title": title, "page": page_of(comments, total, state), "state": state}
    context["comments"] = presenters.comment_items(pk, comments)
    return render_list(request, "cms/comment_list.html", context, "comments")


@post_only(lambda pk: _detail_url(pk) + "#comment-form")
def comment_add(request, pk: int):
    form = CommentForm(request.POST)
    if form.is_valid():
        text = form.cleaned_data["text"]
        added = or_404(
            store.add_named_comment, pk, author=request.user.get_username(), text=text, at=_now(), actor=_actor(request)
        )  # one script: the comment, the post's embed and count, the event, and the title for the message
        messages.success(request, f"Your comment on “{added.post_title}” was added.")
        return redirect(_detail_url(pk) + "#comments")
    return _detail(request, or_404(store.get_post, pk), focus_first_error(form), status=400)


def comment_delete(request, pk: int, comment_id: int):
    """GET asks first (what will go, and from which post); POST deletes."""
    if request.method == "POST":
        title, comment = or_404(store.delete_named_comment, pk, comment_id, actor=_actor(request))
        messages.success(request, f"The comment by {comment.author} on “{title}” was deleted.")
        return redirect(_detail_url(pk) + "#comments")
    title, comment = or_404(store.get_comment, pk, comment_id)
    context = {"pk": pk, "title": title, "comment": comment, "cancel_url": _detail_url(pk) + "#comments"}
    context["comment_when"] = presenters.when(comment.at, presenters.MINUTE)
    return render(request, "cms/comment_confirm_delete.html", context)


_VERBS = {"published": "Published", "draft": "Unpublished"}


@post_only(lambda: reverse("cms:post_list"))
def post_bulk_status(request):
    """Publish or unpublish the ticked posts: one script, each changed post saved as a new version."""
    status, ids = request.POST.get("status", ""), selected_ids(request)
    back = back_to_list(request, "cms:post_list")
    if status not in _VERBS:
        messages.error(request, "Choose Publish or Unpublish; nothing was changed.")
        return back
    if not ids:
        messages.warning(request, "Tick the posts to change first; nothing was changed.")
        return back
    done = store.set_status(ids, status, actor=_actor(request), at=_now())
    if done.changed:
        names = ", ".join(f"“{title}”" for title in done.changed)
        messages.success(request, f"{_VERBS[status]} {len(done.changed)} post{pluralize(done.changed)}: {names}.")
    if done.unchanged:
        word = "published" if status == "published" else "drafts"
        messages.info(request, f"{len(done.unchanged)} of the selected posts were already {word}: left as they were.")
    if done.skipped:
        messages.info(request, f"{done.skipped} of the selected posts were deleted or changed meanwhile: skipped.")
    return back
