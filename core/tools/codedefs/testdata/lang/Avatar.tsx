import React from 'react';

export interface AvatarProps {
  name: string;
  url?: string;
  size?: 'sm' | 'lg';
}

type Initials = string;

function initials(name: string): Initials {
  return name
    .split(' ')
    .map((part) => part[0])
    .join('')
    .toUpperCase();
}

export const Avatar: React.FC<AvatarProps> = ({ name, url, size = 'sm' }) => {
  if (url) {
    return <img className={`avatar ${size}`} src={url} alt={name} />;
  }
  return <span className={`avatar ${size}`}>{initials(name)}</span>;
};

export class AvatarGroup extends React.Component<{ names: string[] }> {
  render() {
    return (
      <div className="avatar-group">
        {this.props.names.map((n) => (
          <Avatar key={n} name={n} />
        ))}
      </div>
    );
  }
}
