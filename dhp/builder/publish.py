"""`dhp publish` and `dhp download`: the six dataset repositories on the Hub, versioned by git tags.

Publishing uploads each built folder with :class:`huggingface_hub.HfApi` (``create_repo``,
``upload_folder``, ``create_tag``); the dataset version (``v1.0.0``) becomes a tag on the upload
commit, so ``load_dataset("dhp/summeval", revision="v1.0.0")`` pins it. Every folder is checked
before anything is uploaded: built as the requested version, complete, and, when its source's
terms restrict redistribution, explicitly confirmed by the user. Tokens are whatever
huggingface_hub finds (``HF_TOKEN`` or the login cache); nothing here reads or prints them.
Without network (or under ``HF_HUB_OFFLINE=1``) both commands fail with one line naming the cause.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dhp.builder.build import check_version
from dhp.data.dataset_io import read_build_info
from dhp.data.private import is_private_version
from dhp.errors import DataError, PublishError
from dhp.inference.hub import hub_failure, hub_unusable_errors
from dhp.types import DatasetSpec, Redistribution

__all__ = ["check_publishable", "download_datasets", "publish_datasets"]


def check_publishable(
    spec: DatasetSpec, folder: Path, version: str, confirm_restricted: bool, private_repo: bool = False
) -> None:
    """Raise :class:`PublishError` unless ``folder`` may be published as ``version`` (a private split only
    into private repositories, ``private_repo``)."""
    if not folder.is_dir():
        raise PublishError(f"{folder}: no built dataset folder for {spec.name}; run dhp build first")
    try:
        info = read_build_info(folder)
    except DataError as e:
        raise PublishError(f"incomplete or unreadable dataset folder, rebuild it: {e}") from e
    if info.dataset != spec.name:
        raise PublishError(f"{folder} holds dataset {info.dataset!r}, not {spec.name!r}")
    if info.dataset_version != version:
        raise PublishError(
            f"{folder} was built as version {info.dataset_version}, not {version}; "
            f"rebuild with --version {version} or publish with --version {info.dataset_version}"
        )
    if is_private_version(info.dataset_version) and not private_repo:
        raise PublishError(
            f"refusing to publish {folder}: it is a private split ({info.dataset_version}); it goes only into "
            "private repositories (--private)"
        )
    if spec.source.redistribution is Redistribution.RESTRICTED and not confirm_restricted:
        raise PublishError(
            f"refusing to publish {spec.name}: its source's terms restrict redistribution. {spec.source.terms} "
            "If you hold the rights to redistribute it, pass --confirm-restricted."
        )


def _api(endpoint: str | None) -> Any:
    from huggingface_hub import HfApi

    return HfApi(endpoint=endpoint)


def publish_datasets(
    specs: Sequence[DatasetSpec],
    root: Path,
    *,
    org: str,
    version: str,
    confirm_restricted: bool = False,
    endpoint: str | None = None,
    private: bool = False,
) -> list[str]:
    """Upload ``root/<name>/`` to ``<org>/<name>`` and tag the commit with ``version``; one line per dataset."""
    from huggingface_hub.errors import HfHubHTTPError

    check_version(version)
    for spec in specs:  # check everything before uploading anything
        check_publishable(spec, root / spec.name, version, confirm_restricted, private)
    api = _api(endpoint)
    lines: list[str] = []
    for spec in specs:
        repo_id = f"{org}/{spec.name}"
        try:
            commit_url = _upload_one(api, repo_id, spec, root / spec.name, version, private)
        except HfHubHTTPError as e:
            status = e.response.status_code if e.response is not None else None
            if status == 409:
                raise PublishError(
                    f"{repo_id}: version {version} is already published (tag exists); datasets are immutable per "
                    "version: build and publish a new version instead"
                ) from e
            raise PublishError(f"{repo_id}: publishing failed: {' '.join(str(e).split())}") from e
        except hub_unusable_errors() as e:
            raise PublishError(hub_failure(repo_id, e, endpoint)) from e
        lines.append(f"{repo_id}@{version}: {commit_url}")
    return lines


def _upload_one(api: Any, repo_id: str, spec: DatasetSpec, folder: Path, version: str, private: bool) -> str:
    """Create the repository, upload the folder, tag the commit; the commit's URL."""
    api.create_repo(repo_id, repo_type="dataset", exist_ok=True, private=private)
    commit = api.upload_folder(
        repo_id=repo_id,
        folder_path=folder,
        repo_type="dataset",
        commit_message=f"{spec.pretty_name} {version}",
        commit_description=f"Built by dhp.builder; dataset version {version}.",
    )
    api.create_tag(
        repo_id,
        tag=version,
        tag_message=f"{spec.pretty_name} {version}",
        revision=commit.oid,
        repo_type="dataset",
    )
    return str(commit.commit_url)


def download_datasets(
    specs: Sequence[DatasetSpec], out: Path, *, org: str, revision: str, endpoint: str | None = None
) -> list[Path]:
    """Download ``<org>/<name>`` at ``revision`` (a version tag, branch or commit) into ``out/<name>``."""
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import HfHubHTTPError, RepositoryNotFoundError, RevisionNotFoundError

    paths: list[Path] = []
    for spec in specs:
        repo_id = f"{org}/{spec.name}"
        try:
            path = snapshot_download(
                repo_id, repo_type="dataset", revision=revision, local_dir=out / spec.name, endpoint=endpoint
            )
        except RevisionNotFoundError as e:
            raise PublishError(f"{repo_id}: no version {revision!r} on the Hub") from e
        except RepositoryNotFoundError as e:
            raise PublishError(f"{repo_id}: no such dataset repository (or no access)") from e
        except HfHubHTTPError as e:
            raise PublishError(f"{repo_id}: download failed: {' '.join(str(e).split())}") from e
        except hub_unusable_errors() as e:
            raise PublishError(hub_failure(repo_id, e, endpoint)) from e
        paths.append(Path(str(path)))
    return paths
